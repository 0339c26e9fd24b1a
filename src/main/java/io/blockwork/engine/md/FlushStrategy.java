package io.blockwork.engine.md;

/** How an array handles PREFLUSH and empty flushes (ARCHITECTURE §5, seed 000). */
public enum FlushStrategy {
    /** Linux 6.12: a flush goes to every active member at once, beside the data; members merge. */
    FANOUT("fanout"),
    /** Before seed 000: one array flush at a time; each waits its turn for a full round. */
    SERIAL("serial");

    private final String label;

    FlushStrategy(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static FlushStrategy fromLabel(String text) {
        for (FlushStrategy s : values()) {
            if (s.label.equals(text)) {
                return s;
            }
        }
        throw new MdArgumentException("strategies.flush", "unknown flush strategy '" + text + "' (fanout, serial)");
    }
}
