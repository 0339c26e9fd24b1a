package io.blockwork.engine.dm;

/**
 * A table was refused. Every refusal names the table line it is about (1-based, counting blank
 * and comment lines, so it points into the text as given; for a table built from a list of target
 * objects, the target's position in the list), and the message starts with {@code line N: }.
 */
public final class TableException extends DmException {

    private final int line;
    private final String reason;

    public TableException(int line, String reason) {
        super("line " + line + ": " + reason);
        this.line = line;
        this.reason = reason;
    }

    /** The 1-based line (or list position) the problem is on. */
    public int line() {
        return line;
    }

    /** The message without the line prefix. */
    public String reason() {
        return reason;
    }
}
