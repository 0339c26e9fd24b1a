package io.blockwork.pool.volume.app;

import io.blockwork.pool.app.ByteUnits;

/**
 * What a create or resize did.
 *
 * @param requestedBytes the size asked for; the volume's size is that rounded up to whole extents
 */
public record VolumeResult(VolumeView volume, long requestedBytes) {

    /** Bytes added by rounding up to whole extents. */
    public long roundedUpBytes() {
        return volume.sizeBytes() - requestedBytes;
    }

    /** Says whether the size was rounded up, and to what. */
    public String note() {
        return roundedUpBytes() == 0 ? "a whole number of extents"
                : "rounded up by " + roundedUpBytes() + " bytes to whole extents of "
                + ByteUnits.human(volume.extentSizeBytes());
    }
}
