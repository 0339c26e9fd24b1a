package io.blockwork.engine.md;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Memory disks that outlive the arrays made of them: a test crashes an array
 * ({@link MdArray#kill}: nothing more is written, as a process kill leaves the members) and
 * assembles it again from the same disks by their superblocks alone.
 */
final class SurvivingMembers implements AutoCloseable {

    final Map<String, BlockDevice> devices = new HashMap<>();
    final MdArrays arrays = new MdArrays(devices::get);
    private final List<MdArray> live = new ArrayList<>();

    Disk disk(String name, long bytes) {
        Disk d = Disk.memory(name, bytes, DiskConfig.DEFAULT);
        devices.put(name, d);
        return d;
    }

    /** {@code mdadm --create} over the named disks; stopped at {@link #close}. */
    MdArray create(MdArraySpec spec, List<String> members) {
        return track(arrays.create(spec, members));
    }

    MdArray track(MdArray a) {
        live.add(a);
        return a;
    }

    /** {@code mdadm --assemble} of {@code spec} from the named devices; the array is stopped at {@link #close}. */
    MdAssembly.Result assemble(MdArraySpec spec, int width, List<String> members) {
        MdAssembly.Result r = arrays.assemble(spec, width, members, List.of());
        track(r.array());
        return r;
    }

    /** Crash, then assemble again by superblocks from {@code members} (none: every device the array had). */
    MdAssembly.Result crashAndAssemble(MdArray a, String... members) {
        a.kill();
        arrays.stop(a.name());
        return members.length == 0
                ? assemble(a.spec(), a.detail().raidDevices(), a.detail().members().stream().map(MdDetail.MemberDetail::device).toList())
                : assemble(a.spec(), 0, List.of(members));
    }

    @Override
    public void close() {
        live.forEach(MdArray::stop);
    }

    static byte[] pattern(int seed, int bytes) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return b;
    }

    static void write(BlockDevice d, long offset, byte[] data) {
        SyncIo.write(d, offset, MemorySegment.ofArray(data));
    }

    static byte[] read(BlockDevice d, long offset, int length) {
        byte[] b = new byte[length];
        SyncIo.read(d, offset, MemorySegment.ofArray(b));
        return b;
    }
}
