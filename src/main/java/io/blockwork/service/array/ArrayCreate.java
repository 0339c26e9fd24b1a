package io.blockwork.service.array;

import java.util.List;

/**
 * What {@code mdadm --create} takes, as plain values from the API; null means the default.
 * Checked by {@link ArrayService#create}, which blames the request field at fault.
 *
 * @param members device names in slot order
 * @param spares device names added as spares once the array exists
 * @param speedMinBytes resync/recovery floor in bytes per second (md's speed_limit_min)
 * @param speedMaxBytes resync/recovery ceiling in bytes per second (md's speed_limit_max)
 * @param assumeClean skip the initial resync (mdadm's {@code --assume-clean}): the members already agree
 * @param metadata {@code 1.2} (default) or {@code none}
 * @param bitmap {@code internal} or {@code none}; null for the default (internal for raid1 and raid10 with metadata)
 * @param bitmapChunkBytes the bitmap's chunk; null for the default
 */
public record ArrayCreate(String name, String level, List<String> members, List<String> spares, Long chunkBytes,
                          String layout, String flushStrategy, String barrierStrategy, Long speedMinBytes,
                          Long speedMaxBytes, boolean assumeClean, String metadata, String bitmap, Long bitmapChunkBytes) {

    public ArrayCreate {
        members = members == null ? List.of() : List.copyOf(members);
        spares = spares == null ? List.of() : List.copyOf(spares);
    }
}
