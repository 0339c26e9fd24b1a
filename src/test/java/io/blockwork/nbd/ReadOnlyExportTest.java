package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdWire;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 6 acceptance 4: a read-only export refuses every change with EPERM and keeps serving reads. */
@Tag("real-client")
class ReadOnlyExportTest {

    private static final int EPERM = 1;
    private final NbdFixture nbd = new NbdFixture();
    private final Disk disk = Disk.memory("ro", 4L << 20, DiskConfig.DEFAULT);

    ReadOnlyExportTest() {
        nbd.export(NbdExport.of("snap", disk).readOnly(true));
    }

    @AfterEach
    void stop() {
        nbd.close();
    }

    @Test
    void writesTrimsAndZeroingGetEpermWithSimpleReplies() {
        try (RawNbdClient c = nbd.open("snap", false)) {
            assertThat(c.transmissionFlags & io.blockwork.nbd.protocol.TransmissionFlag.READ_ONLY.mask()).isNotZero();

            assertThat(c.write(1, 0, new byte[4096], 0).error()).isEqualTo(EPERM);
            c.send(NbdCommand.TRIM, 0, 2, 0, 4096, null);
            assertThat(c.reply().error()).isEqualTo(EPERM);
            c.send(NbdCommand.WRITE_ZEROES, NbdWire.CMD_FLAG_NO_HOLE, 3, 0, 4096, null);
            assertThat(c.reply().error()).isEqualTo(EPERM);

            // the refused payload was consumed: the connection is still in step
            assertThat(c.read(4, 0, 4096).error()).isZero();
            assertThat(c.flush(5).error()).isZero();
        }
        assertThat(disk.counters().writes() + disk.counters().discards()).isZero();
    }

    @Test
    void writesGetEpermWithAMessageWithStructuredReplies() {
        try (RawNbdClient c = nbd.open("snap", true)) {
            RawNbdClient.Reply r = c.write(1, 0, new byte[512], 0);
            assertThat(r.structured()).isTrue();
            assertThat(r.error()).isEqualTo(EPERM);
            assertThat(r.message()).contains("read-only");
        }
    }

    @Test
    void nbdcopySeesTheExportIsReadOnly(@TempDir Path dir) throws IOException {
        Path source = dir.resolve("one-mib.raw");
        Files.write(source, new byte[1 << 20]);

        ExternalTool.Result r = ExternalTool.run(Duration.ofMinutes(1), "nbdcopy", source.toString(), nbd.uri("snap"));

        assertThat(r.exitCode()).isNotZero();
        assertThat(r.stderr()).contains("the destination is read-only");
        assertThat(disk.counters().writes()).isZero();
    }
}
