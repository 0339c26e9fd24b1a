package io.blockwork.engine.dm.targets.mirror;

import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.contract.ContractChecks;
import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Helpers shared by the mirror tests: data patterns, reading legs back, reaching the live target.
 * Registered as an extension, it removes the devices it created after each test (stopping their workers).
 */
final class MirrorFixture implements AfterEachCallback {

    static final Duration PATIENCE = Duration.ofSeconds(30);

    private final DmTestDevices devs;
    private final List<MappedDevice> created = new ArrayList<>();

    MirrorFixture(DmTestDevices devs) {
        this.devs = devs;
    }

    MappedDevice create(String name, String table) {
        MappedDevice m = devs.create(name, table);
        created.add(m);
        return m;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        created.forEach(m -> {
            if (m.state() != DeviceInfo.State.REMOVED) {
                m.remove();
            }
        });
    }

    static MirrorTarget target(MappedDevice m) {
        return (MirrorTarget) m.liveTable().entries().getFirst().target();
    }

    static MemorySegment random(long seed, int bytes) {
        return ContractChecks.random(seed, bytes);
    }

    static MemorySegment read(BlockDevice d, long offset, int bytes) {
        return ContractChecks.read(d, offset, bytes);
    }

    static void assertSame(MemorySegment actual, MemorySegment expected, String what) {
        ContractChecks.assertSame(actual, expected, what);
    }

    /** Fills {@code bytes} of {@code d} from {@code offset} with a pattern seeded by {@code seed}, 1 MiB at a time. */
    static void fill(BlockDevice d, long offset, long bytes, long seed) {
        for (long done = 0; done < bytes; done += 1 << 20) {
            int len = (int) Math.min(1 << 20, bytes - done);
            SyncIo.write(d, offset + done, random(seed + done, len));
        }
    }

    static void awaitInSync(MirrorTarget t) {
        await().atMost(PATIENCE).until(() -> t.syncedRegions() == t.regionCount());
    }
}
