package io.blockwork.nbd.protocol;

/** Request types of the transmission phase ({@code NBD_CMD_*}). */
public enum NbdCommand {
    READ(0),
    WRITE(1),
    DISC(2),
    FLUSH(3),
    TRIM(4),
    CACHE(5),
    WRITE_ZEROES(6),
    BLOCK_STATUS(7),
    RESIZE(8);

    private static final NbdCommand[] BY_CODE = values();

    private final int code;

    NbdCommand(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** True for commands that change the export's contents. */
    public boolean modifies() {
        return this == WRITE || this == TRIM || this == WRITE_ZEROES;
    }

    /** The command with this code, or null for an unknown one. */
    public static NbdCommand of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
