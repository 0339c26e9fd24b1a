package io.blockwork.nbd.protocol;

/** Reply types of fixed-newstyle option replies ({@code NBD_REP_*}); errors have bit 31 set. */
public enum OptionReply {
    ACK(1),
    SERVER(2),
    INFO(3),
    META_CONTEXT(4),
    ERR_UNSUP(0x80000001),
    ERR_POLICY(0x80000002),
    ERR_INVALID(0x80000003),
    ERR_PLATFORM(0x80000004),
    ERR_TLS_REQD(0x80000005),
    ERR_UNKNOWN(0x80000006),
    ERR_SHUTDOWN(0x80000007),
    ERR_BLOCK_SIZE_REQD(0x80000008),
    ERR_TOO_BIG(0x80000009);

    private final int code;

    OptionReply(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public boolean isError() {
        return code < 0;
    }

    /** The reply type with this code, or null. */
    public static OptionReply of(int code) {
        for (OptionReply r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }
}
