package io.blockwork.nbd.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.NbdExport;
import io.blockwork.nbd.NbdFixture;
import io.blockwork.nbd.NbdLimits;
import io.blockwork.nbd.NbdServer;
import io.blockwork.nbd.ExportTable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java NBD client against real servers: Blockwork's own (in process) and nbdkit's memory
 * plugin (a process). Data round trips, many requests in flight, several connections, FLUSH and
 * FUA reaching the server's disk (a power cut shows it), a dropped connection and a timeout
 * failing the I/O, and the background reconnect.
 */
@Tag("real-client")
class NbdRemoteDeviceTest {

    private static final long MIB = 1 << 20;

    @TempDir
    Path tmp;

    private static MemorySegment random(long bytes, long seed) {
        byte[] b = new byte[(int) bytes];
        new Random(seed).nextBytes(b);
        return Arena.ofAuto().allocate(bytes).copyFrom(MemorySegment.ofArray(b));
    }

    private static MemorySegment read(NbdRemoteDevice d, long offset, long bytes) {
        MemorySegment into = Arena.ofAuto().allocate(bytes);
        SyncIo.read(d, offset, into);
        return into;
    }

    private static NbdClientConfig config(String uri, int connections, Duration timeout) {
        return new NbdClientConfig(NbdUri.parse(uri), connections, timeout, 512);
    }

    @Test
    void readsAndWritesManyInFlightOverSeveralConnectionsAgainstBlockwork() throws Exception {
        Disk disk = Disk.memory("srv", 16 * MIB, DiskConfig.DEFAULT);
        try (NbdFixture server = new NbdFixture().export("vol", disk);
             NbdRemoteDevice remote = NbdRemoteDevice.connect("r", config(server.uri("vol"), 2, Duration.ofSeconds(10)))) {
            assertThat(remote.sizeBytes()).isEqualTo(16 * MIB);
            assertThat(remote.status().connections()).isEqualTo(2);
            assertThat(remote.status().export().structuredReplies()).isTrue();
            // 256 writes of 4 KiB submitted at once, then read back at once
            List<CompletableFuture<IoStatus>> done = new ArrayList<>();
            for (int i = 0; i < 256; i++) {
                CompletableFuture<IoStatus> f = new CompletableFuture<>();
                remote.submit(Bio.write(i * 65536L, random(4096, i), BioFlags.NONE, b -> f.complete(b.status())));
                done.add(f);
            }
            assertThat(done).allSatisfy(f -> assertThat(f.get()).isEqualTo(IoStatus.OK));
            List<CompletableFuture<MemorySegment>> reads = new ArrayList<>();
            for (int i = 0; i < 256; i++) {
                MemorySegment into = Arena.ofAuto().allocate(4096);
                CompletableFuture<MemorySegment> f = new CompletableFuture<>();
                remote.submit(Bio.read(i * 65536L, into, b -> f.complete(b.status().ok() ? into : null)));
                reads.add(f);
            }
            for (int i = 0; i < 256; i++) {
                assertThat(reads.get(i).get().mismatch(random(4096, i))).isEqualTo(-1);
            }
            // a 1 MiB transfer, unaligned to 4 KiB but aligned to the 512-byte block
            MemorySegment big = random(MIB, 99);
            SyncIo.write(remote, 512, big);
            assertThat(read(remote, 512, MIB).mismatch(big)).isEqualTo(-1);
            SyncIo.writeZeroes(remote, 512, 4096);
            SyncIo.discard(remote, 8192, 4096);
            assertThat(read(remote, 512, 4096).mismatch(Arena.ofAuto().allocate(4096))).isEqualTo(-1);
            assertThat(SyncIo.execute(remote, BioOp.READ, 16 * MIB, 512, BioFlags.NONE,
                    Arena.ofAuto().allocate(512))).isEqualTo(IoStatus.INVALID);
        }
    }

    @Test
    void flushAndFuaReachTheServersDiskAcrossAPowerCut() throws Exception {
        Disk disk = Disk.memory("wb", 4 * MIB, DiskConfig.writeback());
        try (NbdFixture server = new NbdFixture().export("wb", disk);
             NbdRemoteDevice remote = NbdRemoteDevice.connect("r", config(server.uri("wb"), 1, Duration.ofSeconds(10)))) {
            SyncIo.write(remote, 0, random(4096, 1));
            SyncIo.write(remote, 4096, random(4096, 2), BioFlags.FUA);
            SyncIo.write(remote, 8192, random(4096, 3));
            SyncIo.flush(remote);
            SyncIo.write(remote, 12288, random(4096, 4));
            disk.powerCut();
            assertThat(read(remote, 4096, 4096).mismatch(random(4096, 2))).as("FUA write").isEqualTo(-1);
            assertThat(read(remote, 0, 4096).mismatch(random(4096, 1))).as("flushed write").isEqualTo(-1);
            assertThat(read(remote, 8192, 4096).mismatch(random(4096, 3))).as("flushed write").isEqualTo(-1);
            assertThat(read(remote, 12288, 4096).mismatch(Arena.ofAuto().allocate(4096)))
                    .as("a write after the last flush is lost in the power cut").isEqualTo(-1);
        }
    }

    @Test
    void aDroppedConnectionFailsTheIoAndTheClientReconnects() throws Exception {
        Disk disk = Disk.memory("srv", 4 * MIB, DiskConfig.DEFAULT);
        ExportTable exports = new ExportTable();
        exports.add(NbdExport.of("vol", disk));
        NbdServer first = new NbdServer(new InetSocketAddress("127.0.0.1", 0), exports, NbdLimits.DEFAULT);
        first.start();
        int port = first.port();
        try (NbdRemoteDevice remote = NbdRemoteDevice.connect("r",
                config("nbd://127.0.0.1:" + port + "/vol", 1, Duration.ofSeconds(10)))) {
            SyncIo.write(remote, 0, random(4096, 5));
            first.stop();
            await().atMost(Duration.ofSeconds(20)).until(() -> remote.state() != ConnectionState.CONNECTED);
            assertThat(SyncIo.execute(remote, BioOp.READ, 0, 4096, BioFlags.NONE, Arena.ofAuto().allocate(4096)))
                    .isEqualTo(IoStatus.IO_ERROR);
            assertThat(remote.status().lastError()).isNotBlank();

            NbdServer second = new NbdServer(new InetSocketAddress("127.0.0.1", port), exports, NbdLimits.DEFAULT);
            second.start();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> remote.state() == ConnectionState.CONNECTED);
                assertThat(remote.status().reconnects()).isEqualTo(1);
                assertThat(read(remote, 0, 4096).mismatch(random(4096, 5))).isEqualTo(-1);
            } finally {
                second.stop();
            }
        }
    }

    @Test
    void aRequestWithoutAReplyTimesOutAndFailsInsteadOfHanging() throws Exception {
        Disk slow = Disk.memory("slow", 4 * MIB, DiskConfig.DEFAULT.withLatency(
                new LatencyModel(Duration.ofSeconds(3).toNanos(), 0, 0, 0)));
        try (NbdFixture server = new NbdFixture().export("slow", slow);
             NbdRemoteDevice remote = NbdRemoteDevice.connect("r", config(server.uri("slow"), 1, Duration.ofMillis(300)))) {
            IoStatus status = SyncIo.execute(remote, BioOp.READ, 0, 4096, BioFlags.NONE, Arena.ofAuto().allocate(4096));
            assertThat(status).isEqualTo(IoStatus.IO_ERROR);
            assertThat(remote.status().timeouts()).isEqualTo(1);
            assertThat(remote.status().lastError()).contains("no reply within 300 ms");
            await().atMost(Duration.ofSeconds(30)).until(() -> remote.state() == ConnectionState.CONNECTED);
        }
    }

    @Test
    void worksWithNbdkitsMemoryPluginOverAUnixSocket() throws Exception {
        Path socket = tmp.resolve("nbdkit.sock");
        Process nbdkit = ExternalTool.startDaemon(tmp.resolve("nbdkit.log"), "nbdkit", "-f", "--exit-with-parent",
                "-U", socket.toString(), "memory", "32M");
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(socket));
            try (NbdRemoteDevice remote = NbdRemoteDevice.connect("k",
                    config("nbd+unix:///?socket=" + socket, 2, Duration.ofSeconds(10)))) {
                assertThat(remote.sizeBytes()).isEqualTo(32 * MIB);
                MemorySegment data = random(MIB, 7);
                SyncIo.write(remote, 3 * MIB, data, BioFlags.FUA);
                SyncIo.flush(remote);
                assertThat(read(remote, 3 * MIB, MIB).mismatch(data)).isEqualTo(-1);
                SyncIo.discard(remote, 3 * MIB, 65536);
                assertThat(read(remote, 3 * MIB, 65536).mismatch(Arena.ofAuto().allocate(65536))).isEqualTo(-1);
                // nbdkit's memory plugin answers sparse reads with holes (NBD_REPLY_TYPE_OFFSET_HOLE) or data
                assertThat(read(remote, 20 * MIB, MIB).mismatch(Arena.ofAuto().allocate(MIB))).isEqualTo(-1);
            }
        } finally {
            ExternalTool.stop(nbdkit);
        }
    }

    @Test
    void anUnknownExportOrAnUnreachableServerIsAnErrorNamingIt() throws Exception {
        try (NbdFixture server = new NbdFixture().export("vol", Disk.memory("m", MIB, DiskConfig.DEFAULT))) {
            assertThatThrownBy(() -> NbdRemoteDevice.connect("r", config(server.uri("nope"), 1, Duration.ofSeconds(5))))
                    .hasMessageContaining("refused export 'nope'");
        }
        assertThatThrownBy(() -> NbdRemoteDevice.connect("r", config("nbd+unix:///x?socket=" + tmp.resolve("none"),
                1, Duration.ofSeconds(5)))).hasMessageContaining("cannot connect");
    }

    @Test
    void uris() {
        NbdUri tcp = NbdUri.parse("nbd://10.0.0.2/vol%201");
        assertThat(tcp.host()).isEqualTo("10.0.0.2");
        assertThat(tcp.port()).isEqualTo(10809);
        assertThat(tcp.exportName()).isEqualTo("vol 1");
        assertThat(NbdUri.parse("nbd://[::1]:10900/").host()).isEqualTo("::1");
        assertThat(NbdUri.parse("nbd+unix:///e?socket=/run/s.sock").socketPath()).isEqualTo(Path.of("/run/s.sock"));
        assertThatThrownBy(() -> NbdUri.parse("nbds://h/e")).hasMessageContaining("not supported");
        assertThatThrownBy(() -> NbdUri.parse("nbd+unix:///e")).hasMessageContaining("needs the socket");
        assertThatThrownBy(() -> NbdUri.parse("http://h/e")).hasMessageContaining("unknown scheme");
        assertThatThrownBy(() -> NbdUri.parse("nbd:///e")).hasMessageContaining("needs a host");
    }
}
