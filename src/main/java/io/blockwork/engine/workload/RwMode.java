package io.blockwork.engine.workload;

/** fio's {@code rw=}: the I/O pattern of a job. */
public enum RwMode {
    READ("read", false, true, false),
    WRITE("write", false, false, true),
    RANDREAD("randread", true, true, false),
    RANDWRITE("randwrite", true, false, true),
    RANDRW("randrw", true, true, true);

    private final String label;
    private final boolean random;
    private final boolean reads;
    private final boolean writes;

    RwMode(String label, boolean random, boolean reads, boolean writes) {
        this.label = label;
        this.random = random;
        this.reads = reads;
        this.writes = writes;
    }

    public String label() {
        return label;
    }

    public boolean random() {
        return random;
    }

    public boolean reads() {
        return reads;
    }

    public boolean writes() {
        return writes;
    }

    public static RwMode fromLabel(String label) {
        for (RwMode m : values()) {
            if (m.label.equals(label)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown rw mode '" + label + "' (read, write, randread, randwrite, randrw)");
    }
}
