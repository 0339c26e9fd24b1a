package io.blockwork.engine.md.metadata;

/**
 * A device's md metadata cannot be used: no superblock, a torn or corrupt one, one from another
 * array, or one that describes more data than the device holds. The message says which, in words
 * fit for an API answer.
 */
public final class MetadataException extends RuntimeException {

    private final boolean blank;

    public MetadataException(String message) {
        this(message, false);
    }

    public MetadataException(String message, boolean blank) {
        super(message);
        this.blank = blank;
    }

    /** True when the superblock area holds only zeros: a device that never was a member (or was wiped). */
    public boolean blank() {
        return blank;
    }
}
