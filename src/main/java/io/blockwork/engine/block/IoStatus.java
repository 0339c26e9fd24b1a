package io.blockwork.engine.block;

/** How a {@link Bio} ended, after the kernel's blk_status_t. */
public enum IoStatus {
    OK,
    /** The medium or a lower layer failed the request (EIO). */
    IO_ERROR,
    /** Offset, length or alignment outside what the device accepts (EINVAL). */
    INVALID,
    /** The device has no room left, e.g. a full snapshot store (ENOSPC). */
    NO_SPACE,
    /** The device does not do this operation (EOPNOTSUPP). */
    NOT_SUPPORTED,
    /** The device, or the export in front of it, refuses changes (EPERM). */
    READ_ONLY;

    public boolean ok() {
        return this == OK;
    }
}
