package io.blockwork.e2e;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the service acknowledged, as the crash suite's driver keeps it: the configuration it
 * changed (extra file disks, volumes of pool {@code p}, their snapshots, exports, raid1 arrays
 * over extra disks, the members of array {@code md}) and every block it wrote durably (FUA, or a write whose flush was answered),
 * by device. A snapshot's blocks are its volume's as they were when it was taken.
 *
 * <p>Copied before each operation, so the model before and after an operation that was in flight
 * at a kill are both at hand: what comes back must be one of them.
 */
final class CrashModel {

    /** Extra file disks: name to size. */
    final TreeMap<String, Long> disks = new TreeMap<>();
    /** Volumes: name to size in bytes. */
    final TreeMap<String, Long> volumes = new TreeMap<>();
    /** Snapshots: name to [volume, COW size]. */
    final TreeMap<String, String[]> snapshots = new TreeMap<>();
    /** Exports: name to device. */
    final TreeMap<String, String> exports = new TreeMap<>();
    /** Arrays other than {@code md}, which come and go: name to their members' names, comma-separated. */
    final TreeMap<String, String> arrays = new TreeMap<>();
    /** Members of the array: device to faulty. */
    final TreeMap<String, Boolean> members = new TreeMap<>();
    /** Durable blocks: device to block index to content. */
    final TreeMap<String, TreeMap<Long, byte[]>> blocks = new TreeMap<>();

    CrashModel copy() {
        CrashModel c = new CrashModel();
        c.disks.putAll(disks);
        c.volumes.putAll(volumes);
        c.snapshots.putAll(snapshots);
        c.exports.putAll(exports);
        c.arrays.putAll(arrays);
        c.members.putAll(members);
        blocks.forEach((device, b) -> c.blocks.put(device, new TreeMap<>(b)));
        return c;
    }

    /** The configuration as text, one object a line, in a fixed order: what is compared after a restart. */
    String configuration() {
        StringBuilder s = new StringBuilder();
        disks.forEach((n, size) -> s.append("disk ").append(n).append(' ').append(size).append('\n'));
        volumes.forEach((n, size) -> s.append("volume ").append(n).append(' ').append(size).append('\n'));
        snapshots.forEach((n, v) -> s.append("snapshot ").append(n).append(" of ").append(v[0]).append(' ')
                .append(v[1]).append('\n'));
        exports.forEach((n, d) -> s.append("export ").append(n).append(" of ").append(d).append('\n'));
        arrays.forEach((n, m) -> s.append("array ").append(n).append(" of ").append(m).append('\n'));
        members.forEach((n, faulty) -> s.append("member ").append(n).append(faulty ? " faulty" : " working")
                .append('\n'));
        return s.toString();
    }

    TreeMap<Long, byte[]> blocksOf(String device) {
        return blocks.computeIfAbsent(device, d -> new TreeMap<>());
    }

    /** Removes a volume with its snapshots and every export of either, as a forced delete does. */
    void removeVolume(String volume) {
        volumes.remove(volume);
        blocks.remove(volume);
        for (String s : snapshots.entrySet().stream().filter(e -> e.getValue()[0].equals(volume))
                .map(Map.Entry::getKey).toList()) {
            removeSnapshot(s);
        }
        exports.values().removeIf(volume::equals);
    }

    void removeSnapshot(String snapshot) {
        snapshots.remove(snapshot);
        blocks.remove(snapshot);
        exports.values().removeIf(snapshot::equals);
    }

    /** Whether two contents are the same (a block is compared, not the array object). */
    static boolean same(byte[] a, byte[] b) {
        return Arrays.equals(a, b);
    }
}
