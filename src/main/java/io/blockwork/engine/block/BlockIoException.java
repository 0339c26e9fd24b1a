package io.blockwork.engine.block;

/** A synchronous I/O (see {@link SyncIo}) ended with an error status. */
public final class BlockIoException extends RuntimeException {
    private final IoStatus status;

    public BlockIoException(IoStatus status, String message) {
        super(message + ": " + status);
        this.status = status;
    }

    public IoStatus status() {
        return status;
    }
}
