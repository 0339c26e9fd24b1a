package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 6 acceptance 2: qemu-img convert/compare and nbdcopy both ways through an export. */
@Tag("real-client")
class QemuImgAndNbdcopyTest {

    private static final long SIZE = 64L << 20;
    private static final long HOLE_AT = 40L << 20;
    private static final int HOLE = 4 << 20;
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @TempDir
    Path dir;
    private final NbdFixture nbd = new NbdFixture();
    private Path image;
    private byte[] content;

    @BeforeEach
    void randomImageWithAZeroRegion() throws IOException {
        content = new byte[(int) SIZE];
        new Random(6).nextBytes(content);
        Arrays.fill(content, (int) HOLE_AT, (int) HOLE_AT + HOLE, (byte) 0);
        image = dir.resolve("source.raw");
        Files.write(image, content);
    }

    @AfterEach
    void stop() {
        nbd.close();
    }

    /** A disk full of 0xff, so zeroes the client skips writing would show as a mismatch. */
    private static Disk dirtyDisk(String name) {
        Disk d = Disk.memory(name, SIZE, DiskConfig.DEFAULT);
        MemorySegment ones = MemorySegment.ofArray(new byte[1 << 20]).fill((byte) 0xff);
        for (long off = 0; off < SIZE; off += ones.byteSize()) {
            SyncIo.write(d, off, ones);
        }
        return d;
    }

    private static byte[] contents(Disk d) {
        byte[] all = new byte[(int) d.sizeBytes()];
        SyncIo.read(d, 0, MemorySegment.ofArray(all));
        return all;
    }

    @Test
    void qemuImgConvertThenCompare() {
        Disk disk = dirtyDisk("qemu-target");
        nbd.export("img", disk);

        ExternalTool.run(TIMEOUT, "qemu-img", "convert", "-n", "-f", "raw", "-O", "raw",
                image.toString(), nbd.uri("img")).requireSuccess();
        ExternalTool.Result cmp = ExternalTool.run(TIMEOUT, "qemu-img", "compare", "-f", "raw", "-F", "raw",
                image.toString(), nbd.uri("img")).requireSuccess();

        assertThat(cmp.stdout()).contains("Images are identical");
        assertThat(Arrays.mismatch(contents(disk), content)).as("first differing byte on the device").isEqualTo(-1);
    }

    @Test
    void qemuImgCompareNoticesADifference() {
        Disk disk = dirtyDisk("qemu-differs");
        nbd.export("img", disk);
        ExternalTool.run(TIMEOUT, "qemu-img", "convert", "-n", "-f", "raw", "-O", "raw",
                image.toString(), nbd.uri("img")).requireSuccess();
        SyncIo.write(disk, 12L << 20, MemorySegment.ofArray(new byte[4096]).fill((byte) 7));

        ExternalTool.Result cmp = ExternalTool.run(TIMEOUT, "qemu-img", "compare", "-f", "raw", "-F", "raw",
                image.toString(), nbd.uri("img"));

        assertThat(cmp.exitCode()).isEqualTo(1);
        assertThat(cmp.stdout()).contains("Content mismatch at offset " + (12L << 20));
    }

    @Test
    void nbdcopyIntoAnExportAndBackOut() throws IOException {
        Disk disk = dirtyDisk("copy-target");
        nbd.export("copy", disk);
        Path back = dir.resolve("back.raw");
        Files.write(back, new byte[0]);

        ExternalTool.run(TIMEOUT, "nbdcopy", image.toString(), nbd.uri("copy")).requireSuccess();
        ExternalTool.run(TIMEOUT, "nbdcopy", nbd.uri("copy"), back.toString()).requireSuccess();

        assertThat(Arrays.mismatch(contents(disk), content)).as("first differing byte on the device").isEqualTo(-1);
        assertThat(Files.mismatch(image, back)).as("first differing byte after the round trip").isEqualTo(-1);
    }
}
