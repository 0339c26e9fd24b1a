package io.blockwork.nbd.protocol;

/** Options a client sends during fixed-newstyle negotiation ({@code NBD_OPT_*}). */
public enum NbdOption {
    EXPORT_NAME(1),
    ABORT(2),
    LIST(3),
    STARTTLS(5),
    INFO(6),
    GO(7),
    STRUCTURED_REPLY(8),
    LIST_META_CONTEXT(9),
    SET_META_CONTEXT(10),
    EXTENDED_HEADERS(11);

    private final int code;

    NbdOption(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The option with this code, or null for one this server does not know. */
    public static NbdOption of(int code) {
        for (NbdOption o : values()) {
            if (o.code == code) {
                return o;
            }
        }
        return null;
    }
}
