package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.targets.Targets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 6 acceptance 3: fio's nbd engine, random 4K writes at depth 32 from two jobs, each job's
 * blocks verified with crc32c after its write pass.
 */
@Tag("real-client")
class FioVerifyTest {

    private static final long REGION = 32L << 20;

    /** One line per device kind. */
    static Stream<Named<Supplier<BlockDevice>>> devices() {
        return Stream.of(
                Named.of("memory disk", () -> Disk.memory("fio-mem", 2 * REGION, DiskConfig.DEFAULT)),
                Named.of("writeback memory disk", () -> Disk.memory("fio-wb", 2 * REGION, DiskConfig.writeback())),
                Named.of("mapped device (linear over a memory disk)", () -> linearOver(Disk.memory("fio-lower", 2 * REGION + (1 << 20), DiskConfig.DEFAULT))),
                Named.of("raid10 n2 over four memory disks", FioVerifyTest::raid10));
    }

    /** raid10 n2 over four disks of one region each: two regions of usable space. */
    private static MdArray raid10() {
        List<Disk> members = IntStream.range(0, 4)
                .mapToObj(i -> Disk.memory("fio-md-" + i, REGION, DiskConfig.DEFAULT)).toList();
        return MdArray.create(MdArraySpec.of("fio-md", MdLevel.RAID10).withAssumeClean(true), members);
    }

    /** A dm device mapping every sector but the lower disk's first MiB, so offsets are really remapped. */
    private static MappedDevice linearOver(Disk lower) {
        try {
            return MappedDevice.create("fio-dm", null, "0 " + (2 * REGION / 512) + " linear fio-lower 2048",
                    name -> name.equals("fio-lower") ? lower : null, Targets.config());
        } catch (TableException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("devices")
    void randwriteVerifiesWithTwoJobsAtDepth32(Supplier<BlockDevice> device) {
        try (NbdFixture nbd = new NbdFixture()) {
            BlockDevice d = device.get();
            nbd.export("fio", d);

            ExternalTool.Result r = ExternalTool.run(Duration.ofMinutes(3), "fio", "--name=nbd-verify",
                    "--ioengine=nbd", "--uri=" + nbd.uri("fio"), "--rw=randwrite", "--bs=4k",
                    "--iodepth=32", "--numjobs=2", "--size=" + REGION, "--offset_increment=" + REGION,
                    "--verify=crc32c", "--verify_fatal=1", "--verify_state_save=0", "--output-format=json").requireSuccess();

            Map<String, Object> doc = Json.parseObject(r.stdout());
            @SuppressWarnings("unchecked")
            List<Object> jobs = (List<Object>) Json.at(doc, "jobs");
            assertThat(jobs).hasSize(2);
            for (Object job : jobs) {
                assertThat(Json.number(job, "error")).isZero();
                assertThat(Json.number(job, "write", "io_bytes")).isEqualTo(REGION);
                // the verify pass read back every block the job wrote
                assertThat(Json.number(job, "read", "io_bytes")).isEqualTo(REGION);
            }
            assertThat(r.stderr()).doesNotContain("verify");
            assertThat(d.counters().writtenBytes()).isGreaterThanOrEqualTo(2 * REGION);
            if (d instanceof MdArray array) {
                array.stop();
            }
        }
    }
}
