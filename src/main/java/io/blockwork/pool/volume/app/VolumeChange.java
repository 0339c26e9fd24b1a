package io.blockwork.pool.volume.app;

/**
 * A change to a volume; absent members stay as they are. At most one of {@code sizeBytes} and
 * {@code deltaBytes} is set.
 *
 * @param sizeBytes the new size, or null
 * @param deltaBytes the size change, e.g. +5 GiB or -1 GiB, or null
 * @param allowShrink acknowledges that a smaller size loses the data past the new end
 * @param newName the new name, or null
 */
public record VolumeChange(Long sizeBytes, Long deltaBytes, boolean allowShrink, String newName) {

    public static VolumeChange rename(String newName) {
        return new VolumeChange(null, null, false, newName);
    }
}
