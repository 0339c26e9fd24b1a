package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.targets.ThinPoolTarget;
import io.blockwork.engine.dm.targets.Targets;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A thin pool on two writeback memory disks (metadata, data) for tests, with thin devices made
 * through the pool's messages and tables, as dmsetup users do; {@link #restart} builds a fresh
 * engine over the same disks, as a service restart does, and {@link #crash} first fails the power.
 */
public final class ThinRig implements AutoCloseable {

    public static final int BLOCK_SECTORS = 128;
    public static final long BLOCK = BLOCK_SECTORS << 9;

    public final Disk meta;
    public final Disk data;
    private final ThinConfig thinConfig;
    private final String poolFeatures;
    private DmTestDevices devs;
    public MappedDevice pool;
    private final List<MappedDevice> thins = new ArrayList<>();

    public ThinRig(long metaBytes, long dataBytes) {
        this(metaBytes, dataBytes, ThinConfig.defaults(), "");
    }

    public ThinRig(long metaBytes, long dataBytes, ThinConfig thinConfig, String poolFeatures) {
        this.meta = Disk.memory("meta", metaBytes, DiskConfig.writeback());
        this.data = Disk.memory("data", dataBytes, DiskConfig.writeback());
        this.thinConfig = thinConfig;
        this.poolFeatures = poolFeatures;
        start();
    }

    private void start() {
        DmConfig config = Targets.config().withThin(new ThinConfig(new ThinPools(), thinConfig.noSpaceTimeout(),
                thinConfig.commitPeriod(), thinConfig.nodeCapacity()));
        devs = new DmTestDevices().config(config);
        devs.add(meta);
        devs.add(data);
        thins.clear();
        pool = devs.create("pool", poolTable(data.sizeBytes() >> 9));
    }

    public String poolTable(long dataSectors) {
        return "0 " + dataSectors + " thin-pool meta data " + BLOCK_SECTORS + " 0"
                + (poolFeatures.isBlank() ? "" : " " + poolFeatures.split(" ").length + " " + poolFeatures) + "\n";
    }

    public Pool poolObject() {
        return ((ThinPoolTarget) pool.liveTable().entries().getFirst().target()).pool();
    }

    public PoolMetadata metadata() {
        return poolObject().metadata();
    }

    public String message(String m) {
        return pool.message(0, m);
    }

    /** Activates thin device {@code id} as mapped device {@code name} of {@code bytes}. */
    public MappedDevice thin(String name, long id, long bytes) {
        MappedDevice d = devs.create(name, "0 " + (bytes >> 9) + " thin pool " + id + "\n");
        thins.add(d);
        return d;
    }

    /** create_thin, then activate. */
    public MappedDevice newThin(String name, long id, long bytes) {
        message("create_thin " + id);
        return thin(name, id, bytes);
    }

    /** Snapshot of active {@code origin} (thin id {@code originId}) as id {@code id}: suspend, create_snap, resume. */
    public void snapshot(MappedDevice origin, long originId, long id) {
        origin.suspend();
        try {
            message("create_snap " + id + " " + originId);
        } finally {
            origin.resume();
        }
    }

    public void remove(MappedDevice thin) {
        thin.remove();
        thins.remove(thin);
    }

    public DmTestDevices devices() {
        return devs;
    }

    /** Removes every device (the pool commits as it closes) and builds them again over the same disks. */
    public void restart() {
        for (MappedDevice t : List.copyOf(thins)) {
            t.remove();
        }
        pool.remove();
        start();
    }

    /**
     * The power fails now: both disks stop doing anything (every later request fails, as on a dead
     * machine) and lose what they had not made durable. Call {@link #reboot} to start again.
     */
    public void powerFailure() {
        meta.faults(DiskFaults.ALL);
        data.faults(DiskFaults.ALL);
        meta.powerCut();
        data.powerCut();
    }

    /**
     * After {@link #powerFailure}: the old engine is dropped without a final commit (its devices
     * fail all I/O meanwhile), the disks come back with what was durable at the failure, and a
     * fresh engine opens the pool again.
     */
    public void reboot() {
        poolObject().abandon();
        for (MappedDevice t : List.copyOf(thins)) {
            t.remove();
        }
        pool.remove();
        meta.powerCut(); // anything that landed after the failure was never durable
        data.powerCut();
        meta.faults(DiskFaults.NONE);
        data.faults(DiskFaults.NONE);
        start();
    }

    /** A power failure at this instant, then a reboot. */
    public void crash() {
        powerFailure();
        reboot();
    }

    @Override
    public void close() {
        for (MappedDevice t : List.copyOf(thins)) {
            t.remove();
        }
        if (pool != null) {
            pool.remove();
        }
    }

    /* ---- Data helpers ---- */

    public static MemorySegment pattern(long seed, int len) {
        byte[] b = new byte[len];
        new Random(seed).nextBytes(b);
        return MemorySegment.ofArray(b);
    }

    public static MemorySegment read(BlockDevice d, long offset, int len) {
        MemorySegment m = MemorySegment.ofArray(new byte[len]);
        SyncIo.read(d, offset, m);
        return m;
    }
}
