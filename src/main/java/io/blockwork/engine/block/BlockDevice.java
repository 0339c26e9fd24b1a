package io.blockwork.engine.block;

/**
 * Anything bios can be submitted to: a disk, an md array, a mapped device.
 *
 * <p>The contract every implementation keeps (and the contract test kit checks):
 * <ul>
 *   <li>{@link #submit} never blocks on the fast path; the bio's callback may run on any thread,
 *       including the caller's, before {@code submit} returns.
 *   <li>A bio with a misaligned or out-of-range geometry completes with {@link IoStatus#INVALID}.
 *   <li>Flush and FUA: a write that completed without FUA may still sit in a volatile cache. When
 *       a FLUSH (or a PREFLUSH on a write) completes, every write that completed before the flush
 *       was submitted is durable. A FUA write is durable when it completes.
 * </ul>
 */
public interface BlockDevice {

    String name();

    long sizeBytes();

    DeviceLimits limits();

    void submit(Bio bio);

    IoCounters counters();

    /**
     * Describes what {@code [offset, offset+length)} holds (SEEK_DATA/SEEK_HOLE, NBD's
     * {@code base:allocation}): appends runs covering exactly that range to {@code out}, unless
     * {@code out} {@link Extents#stopped() stops} first. A device never reports a {@link
     * Allocation#HOLE} where a write that completed before the call left data; where it cannot
     * tell exactly it reports {@link Allocation#DATA}, which is what this default does. The range
     * must lie inside the device. May block briefly (a file's extent lookup); never waits for I/O.
     */
    default void allocation(long offset, long length, Extents out) {
        out.add(length, Allocation.DATA);
    }

    /**
     * The device's accounting behind {@link #counters}: latency histograms too. Devices that keep
     * none return {@link IoStats#NONE}.
     */
    default IoStats stats() {
        return IoStats.NONE;
    }

    /**
     * The devices this one sends I/O to (sysfs's {@code slaves}): md members, a dm table's
     * devices. Used to refuse cycles and to explain why a device is busy.
     */
    default java.util.Collection<BlockDevice> lowerDevices() {
        return java.util.List.of();
    }
}
