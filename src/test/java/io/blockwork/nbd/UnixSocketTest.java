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
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NBD over a Unix-domain socket: libnbd's and qemu's tools reach an export by
 * {@code nbd+unix:///NAME?socket=PATH}, data goes both ways, BLOCK_STATUS works there too, a stale
 * socket file from an earlier run does not stop the server, and stopping removes the file.
 */
@Tag("real-client")
class UnixSocketTest {

    private static final long SIZE = 16L << 20;
    private static final Duration TIMEOUT = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    @Test
    void clientsConnectByPathAndTheSocketFileIsCleanedUp() throws IOException {
        Path socket = dir.resolve("nbd.sock");
        Files.writeString(socket, "left by a crash");
        Disk disk = Disk.memory("unix-mem", SIZE, DiskConfig.DEFAULT);
        byte[] data = new byte[1 << 20];
        new Random(20).nextBytes(data);
        SyncIo.write(disk, 4L << 20, MemorySegment.ofArray(data));

        try (NbdFixture nbd = new NbdFixture(socket)) {
            nbd.export("mem", disk);
            String uri = nbd.uri("mem");
            assertThat(uri).isEqualTo("nbd+unix:///mem?socket=" + socket);

            Map<String, Object> info = Json.parseObject(
                    ExternalTool.run(TIMEOUT, "nbdinfo", "--json", uri).requireSuccess().stdout());
            assertThat(Json.number(Json.at(info, "exports", 0), "export-size")).isEqualTo(SIZE);

            Path out = dir.resolve("out.raw");
            ExternalTool.run(TIMEOUT, "nbdcopy", uri, out.toString()).requireSuccess();
            byte[] copied = Files.readAllBytes(out);
            assertThat(java.util.Arrays.mismatch(copied, 4 << 20, 5 << 20, data, 0, data.length)).isEqualTo(-1);

            ExternalTool.Result map = ExternalTool.run(TIMEOUT, "qemu-img", "map", "--output=json", "-f", "raw", uri)
                    .requireSuccess();
            assertThat(map.stdout()).contains("\"start\": " + (4 << 20) + ", \"length\": " + (1 << 20)
                    + ", \"depth\": 0, \"present\": true, \"zero\": false, \"data\": true");

            Path in = dir.resolve("in.raw");
            byte[] fresh = new byte[(int) SIZE];
            new Random(21).nextBytes(fresh);
            Files.write(in, fresh);
            ExternalTool.run(TIMEOUT, "qemu-img", "convert", "-n", "-f", "raw", "-O", "raw", in.toString(), uri)
                    .requireSuccess();
            byte[] back = new byte[(int) SIZE];
            SyncIo.read(disk, 0, MemorySegment.ofArray(back));
            assertThat(back).isEqualTo(fresh);
        }
        assertThat(socket).as("the socket file after stop").doesNotExist();
    }
}
