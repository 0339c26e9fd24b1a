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
 * @param stripeCacheSize raid4/5/6: the stripe cache's size in stripe heads (md's stripe_cache_size)
 * @param journal raid4/5/6: a device for the write journal (mdadm's {@code --write-journal}), or null
 * @param writeMostly members or spares flagged write-mostly (mdadm's {@code --write-mostly}): raid1
 *                    reads avoid them, for a leg on another machine
 */
public record ArrayCreate(String name, String level, List<String> members, List<String> spares, Long chunkBytes,
                          String layout, String flushStrategy, String barrierStrategy, Long speedMinBytes,
                          Long speedMaxBytes, boolean assumeClean, Integer stripeCacheSize,
                          String journal, List<String> writeMostly) {

    public ArrayCreate {
        members = members == null ? List.of() : List.copyOf(members);
        spares = spares == null ? List.of() : List.copyOf(spares);
        writeMostly = writeMostly == null ? List.of() : List.copyOf(writeMostly);
    }
}
