package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** /proc/mdstat text as md prints it. */
@Tag("unit")
class MdStatTest {

    private static final long MIB = 1L << 20;

    private static String line(SyncStatus s) {
        StringBuilder b = new StringBuilder();
        MdStat.progress(b, s);
        return b.toString();
    }

    @Test
    void progressLineFollowsStatusResync() {
        // 512 MiB of 1 GiB: per_milli = (1048576>>10)*1000 / ((2097152>>10)+1) = 499; 524288 KiB left at 1000 K/sec.
        SyncStatus half = new SyncStatus(SyncAction.RESYNC, false, 512 * MIB, 1024 * MIB, 1000, 524, null);
        assertThat(line(half)).isEqualTo("[=========>...........]  resync = 49.9% (524288/1048576) finish=8.7min speed=1000K/sec");

        SyncStatus early = new SyncStatus(SyncAction.RECOVER, false, 89 * MIB, 1022 * MIB, 91136, 10, "sde");
        assertThat(line(early)).isEqualTo("[=>...................]  recovery =  8.7% (91136/1046528) finish=0.1min speed=91136K/sec");

        SyncStatus paused = new SyncStatus(SyncAction.CHECK, true, 0, 64 * MIB, 0, -1, null);
        assertThat(line(paused)).isEqualTo("[>....................]  check =  0.0% (0/65536) paused");
    }

    @Test
    void rendersEveryArrayLikeMd() {
        List<Disk> r10 = List.of(disk("sda"), disk("sdb"), disk("sdc"), disk("sdd"));
        MdArray md0 = MdArray.create(MdArraySpec.of("md0", MdLevel.RAID10).withChunk(64 * 1024).withAssumeClean(true), r10);
        MdArray md1 = MdArray.create(MdArraySpec.of("md1", MdLevel.RAID1).withAssumeClean(true), List.of(disk("sde"), disk("sdf")));
        md1.add(disk("sdg"));
        md1.fail("sde");
        MdArray md2 = MdArray.create(MdArraySpec.of("md2", MdLevel.RAID0).withChunk(512 * 1024), List.of(disk("sdh"), disk("sdi")));
        MdArray md3 = MdArray.create(MdArraySpec.of("md3", MdLevel.LINEAR), List.of(disk("sdj")));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> md1.detail().activeDevices() == 2 && md1.detail().sync().action() == SyncAction.IDLE);
        String text = MdStat.render(List.of(md0, md1, md2, md3));
        assertThat(text).isEqualTo("""
                Personalities : [linear] [raid0] [raid1] [raid10] [raid4] [raid5] [raid6]\s
                md0 : active raid10 sdd[3] sdc[2] sdb[1] sda[0]
                      16384 blocks super non-persistent 64K chunks 2 near-copies [4/4] [UUUU]
                     \s
                md1 : active raid1 sdg[2] sdf[1] sde[0](F)
                      8128 blocks super non-persistent [2/2] [UU]
                     \s
                md2 : active raid0 sdi[1] sdh[0]
                      16384 blocks super non-persistent 512k chunks
                     \s
                md3 : active linear sdj[0]
                      8192 blocks super non-persistent 0k rounding
                     \s
                unused devices: <none>
                """);
        md0.stop();
        md1.stop();
    }

    private static Disk disk(String name) {
        return Disk.memory(name, name.equals("sde") || name.equals("sdf") || name.equals("sdg") ? 8 * MIB - 1024 : 8 * MIB,
                DiskConfig.DEFAULT);
    }
}
