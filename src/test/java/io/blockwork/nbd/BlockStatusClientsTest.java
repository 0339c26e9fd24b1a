package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.Raid10Layout;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.md.metadata.MetadataSpec;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 20 acceptance 2's check: real clients read BLOCK_STATUS. {@code qemu-img map} over the
 * export lists as data exactly the ranges that were written (on a memory disk and on a volume on
 * raid10), and {@code nbdcopy} and {@code qemu-img convert} to a local sparse file copy the
 * content and leave the unwritten ranges as holes there (the local file's own map equals the
 * written ranges).
 */
@Tag("real-client")
class BlockStatusClientsTest {

    private static final long SIZE = 256L << 20;
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @TempDir
    Path dir;
    private final NbdFixture nbd = new NbdFixture();
    private final List<Runnable> stops = new ArrayList<>();

    @AfterEach
    void stop() {
        nbd.close();
        stops.reversed().forEach(Runnable::run);
    }

    /** A written range, [start, end). */
    record Range(long start, long end) {}

    /** Random 64 KiB-aligned ranges written with random data; returns them sorted and merged. */
    private static List<Range> writeRanges(BlockDevice d, long seed) {
        Random r = new Random(seed);
        boolean[] written = new boolean[(int) (d.sizeBytes() >> 16)];
        for (int i = 0; i < 24; i++) {
            int first = r.nextInt(written.length - 16);
            int count = 1 + r.nextInt(16);
            byte[] data = new byte[count << 16];
            r.nextBytes(data);
            SyncIo.write(d, (long) first << 16, MemorySegment.ofArray(data));
            for (int k = first; k < first + count; k++) {
                written[k] = true;
            }
        }
        return ranges(written);
    }

    private static List<Range> ranges(boolean[] units) {
        List<Range> out = new ArrayList<>();
        for (int i = 0; i < units.length; i++) {
            if (units[i]) {
                int j = i;
                while (j < units.length && units[j]) {
                    j++;
                }
                out.add(new Range((long) i << 16, (long) j << 16));
                i = j;
            }
        }
        return out;
    }

    /** The ranges {@code qemu-img map} calls data, adjacent ones merged. */
    private static List<Range> mappedData(String image) {
        Object doc = Json.parse(ExternalTool.run(TIMEOUT, "qemu-img", "map", "--output=json", "-f", "raw", image)
                .requireSuccess().stdout());
        List<Range> out = new ArrayList<>();
        for (Object o : (List<?>) doc) {
            Map<?, ?> m = (Map<?, ?>) o;
            if (Boolean.TRUE.equals(m.get("data"))) {
                long start = (long) Json.number(m, "start");
                long end = start + (long) Json.number(m, "length");
                if (!out.isEmpty() && out.getLast().end() == start) {
                    out.set(out.size() - 1, new Range(out.getLast().start(), end));
                } else {
                    out.add(new Range(start, end));
                }
            }
        }
        return out;
    }

    private void checkMapAndCopies(String export, BlockDevice device) {
        List<Range> written = writeRanges(device, export.hashCode());
        nbd.export(export, device);

        assertThat(mappedData(nbd.uri(export))).as("qemu-img map over NBD").isEqualTo(written);

        Path copied = dir.resolve(export + "-nbdcopy.raw");
        ExternalTool.run(TIMEOUT, "nbdcopy", nbd.uri(export), copied.toString()).requireSuccess();
        Path converted = dir.resolve(export + "-convert.raw");
        ExternalTool.run(TIMEOUT, "qemu-img", "convert", "-f", "raw", "-O", "raw", nbd.uri(export),
                converted.toString()).requireSuccess();
        byte[] all = new byte[(int) device.sizeBytes()];
        SyncIo.read(device, 0, MemorySegment.ofArray(all));
        for (Path local : List.of(copied, converted)) {
            assertThat(content(local)).as("%s holds the export's bytes", local.getFileName()).isEqualTo(all);
        }
        assertThat(mappedData(copied.toString())).as("nbdcopy's file: holes stay holes").isEqualTo(written);
        // qemu's raw driver always allocates a new file's first block (to probe the alignment).
        assertThat(after(FIRST_BLOCK, mappedData(converted.toString()))).as("qemu-img convert's file: holes stay holes")
                .isEqualTo(after(FIRST_BLOCK, written));
    }

    private static final long FIRST_BLOCK = 4096;

    /** The ranges clipped to start at {@code from}. */
    private static List<Range> after(long from, List<Range> ranges) {
        return ranges.stream().filter(r -> r.end() > from).map(r -> new Range(Math.max(from, r.start()), r.end())).toList();
    }

    private static byte[] content(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void memoryDisk() {
        checkMapAndCopies("mem", Disk.memory("mem", SIZE, DiskConfig.DEFAULT));
    }

    @Test
    void volumeOnRaid10() {
        DmTestDevices devs = new DmTestDevices();
        List<Disk> members = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            // 1 MiB for the volume's start in the array, 1 MiB for the data offset of md's v1.2 superblocks
            members.add(devs.disk("r10-m" + i, SIZE / 2 + (2 << 20)));
        }
        // with superblocks and a bitmap, as the API makes an array: a member's data starts at its data offset
        MdArray r10 = MdArray.create(MdArraySpec.of("r10", MdLevel.RAID10).withLayout(Raid10Layout.parse("n2"))
                .withChunk(64 << 10).withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED)
                .withMetadata(MetadataSpec.v12(new MetadataSpec.Bitmap(64 << 10, MetadataSpec.Bitmap.DEFAULT_DAEMON_SLEEP))),
                members);
        stops.add(r10::stop);
        devs.add(r10);
        checkMapAndCopies("vol", devs.create("vol", "0 " + (SIZE / 512) + " linear r10 2048\n"));
    }
}
