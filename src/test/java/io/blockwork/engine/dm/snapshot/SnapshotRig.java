package io.blockwork.engine.dm.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.targets.Snapshots;
import java.lang.foreign.MemorySegment;
import java.util.Random;

/**
 * A volume ({@code snapshot-origin} over disk {@code base}) and helpers to snapshot it and to
 * compare devices with byte-array images of what they should hold.
 */
final class SnapshotRig {

    final DmTestDevices devs = new DmTestDevices();
    final Disk base;
    final MappedDevice volume;
    final long size;

    SnapshotRig(long size, SnapshotLocking.Kind locking) {
        this(size, locking, DiskConfig.writeback());
    }

    SnapshotRig(long size, SnapshotLocking.Kind locking, DiskConfig baseConfig) {
        this.size = size;
        devs.config(devs.config().withSnapshotLocking(locking));
        base = devs.disk("base", size, baseConfig);
        volume = devs.create("vol", Snapshots.originTable("base", size >> 9));
    }

    DmConfig config() {
        return devs.config();
    }

    Disk cow(String name, long bytes) {
        return devs.disk(name, bytes);
    }

    /** Snapshot of the volume on {@code cow}, created with the volume suspended. */
    MappedDevice snapshot(String name, String cow, StoreType type, long chunkSectors) {
        try {
            return devs.add(Snapshots.create(volume, name, devs.find(cow), type, chunkSectors, devs, devs.config()));
        } catch (TableException e) {
            throw new AssertionError(e);
        }
    }

    /** The whole device, read through it. */
    static byte[] image(BlockDevice d) {
        byte[] b = new byte[(int) d.sizeBytes()];
        SyncIo.read(d, 0, MemorySegment.ofArray(b));
        return b;
    }

    static void assertHolds(BlockDevice d, byte[] expected, String what) {
        byte[] actual = image(d);
        int at = java.util.Arrays.mismatch(actual, expected);
        assertThat(at).as("%s: first byte that differs (chunk %d)", what, at < 0 ? -1 : at / 4096).isEqualTo(-1);
    }

    /** Writes random data at a random place (sector aligned, up to 64 KiB) and mirrors it into {@code model}. */
    static void randomWrite(BlockDevice d, byte[] model, Random r) {
        int len = 512 * (1 + r.nextInt(128));
        long off = 512L * r.nextInt((int) ((d.sizeBytes() - len) / 512 + 1));
        write(d, model, off, len, r);
    }

    static void write(BlockDevice d, byte[] model, long off, int len, Random r) {
        byte[] data = new byte[len];
        r.nextBytes(data);
        SyncIo.write(d, off, MemorySegment.ofArray(data));
        System.arraycopy(data, 0, model, (int) off, len);
    }
}
