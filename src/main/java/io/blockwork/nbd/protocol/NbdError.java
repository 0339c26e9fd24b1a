package io.blockwork.nbd.protocol;

import io.blockwork.engine.block.IoStatus;

/** The error values a reply may carry ({@code NBD_E*}); their numbers are Linux errno values. */
public enum NbdError {
    EPERM(1),
    EIO(5),
    ENOMEM(12),
    EINVAL(22),
    ENOSPC(28),
    EOVERFLOW(75),
    ENOTSUP(95),
    ESHUTDOWN(108);

    private final int code;

    NbdError(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /**
     * What a failed bio tells the client. NOT_SUPPORTED becomes EINVAL: the protocol reserves
     * ENOTSUP for refused fast-zero requests.
     */
    public static NbdError of(IoStatus status) {
        return switch (status) {
            case OK -> throw new IllegalArgumentException("OK is not an error");
            case IO_ERROR -> EIO;
            case INVALID, NOT_SUPPORTED -> EINVAL;
            case NO_SPACE -> ENOSPC;
            case READ_ONLY -> EPERM;
        };
    }

    /** The error with this number, or null. */
    public static NbdError of(int code) {
        for (NbdError e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return null;
    }
}
