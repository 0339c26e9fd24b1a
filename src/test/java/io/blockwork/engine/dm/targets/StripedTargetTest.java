package io.blockwork.engine.dm.targets;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** dm-stripe's layout, split and health status. */
@Tag("unit")
class StripedTargetTest {

    private final DmTestDevices devs = new DmTestDevices();
    private final Disk d0 = devs.disk("d0", 4L << 20);
    private final Disk d1 = devs.disk("d1", 4L << 20);
    private final Disk d2 = devs.disk("d2", 4L << 20);

    @Test
    void chunksGoRoundRobinFromEachStripesOffset() {
        // 3 stripes, 16-sector (8 KiB) chunks; stripe areas start at sectors 0, 100, 200.
        MappedDevice d = devs.create("s", "0 3072 striped 3 16 d0 0 d1 100 d2 200\n");
        byte[] all = new byte[3072 * 512];
        new Random(3).nextBytes(all);
        SyncIo.write(d, 0, MemorySegment.ofArray(all));
        Disk[] disks = {d0, d1, d2};
        long[] base = {0, 100, 200};
        int chunk = 16 * 512;
        for (int c = 0; c < all.length / chunk; c++) {
            int stripe = c % 3;
            MemorySegment got = MemorySegment.ofArray(new byte[chunk]);
            SyncIo.read(disks[stripe], base[stripe] * 512 + (long) (c / 3) * chunk, got);
            assertThat(got.mismatch(MemorySegment.ofArray(all).asSlice((long) c * chunk, chunk)))
                    .as("chunk %d on stripe %d", c, stripe).isEqualTo(-1L);
        }
        assertThat(d.limits().boundaryBytes()).isEqualTo(chunk);
    }

    @Test
    void aFailingStripeShowsAsDeadAndRaisesAnEvent() {
        MappedDevice d = devs.create("s", "0 3072 striped 3 16 d0 0 d1 0 d2 0\n");
        assertThat(d.statusText()).isEqualTo("0 3072 striped 3 d0 d1 d2 1 AAA\n");
        long events = d.info().eventNumber();
        d1.faults(new DiskFaults(true, false, false));
        assertThat(SyncIo.execute(d, BioOp.READ, 16 * 512, 512, BioFlags.NONE, MemorySegment.ofArray(new byte[512])))
                .isEqualTo(IoStatus.IO_ERROR);
        assertThat(d.statusText()).isEqualTo("0 3072 striped 3 d0 d1 d2 1 ADA\n");
        assertThat(d.info().eventNumber()).isEqualTo(events + 1);
    }
}
