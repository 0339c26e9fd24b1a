package io.blockwork.e2e;

import static io.blockwork.e2e.ArrayCalls.array;
import static io.blockwork.e2e.ArrayCalls.created;
import static io.blockwork.e2e.ArrayCalls.read;
import static io.blockwork.e2e.ExportEndToEndTest.nbdPort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.Json;
import io.blockwork.support.TempDataDir;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21, acceptance 3 and 4: a raid1 on instance A with one local leg and one remote leg (an
 * {@code nbd} disk), write-mostly on the remote one. fio verifies over A's export while the remote
 * server stops in the middle of the run: the array degrades and fio sees no error. The server
 * comes back, A's client reconnects, the member is re-added and rebuilt, and the two legs compare
 * equal byte for byte.
 *
 * <p>The remote server is instance B first: a second Blockwork exporting a volume of a pool on a
 * file disk, so its data and the leg's md superblock survive its restart, and the re-add goes
 * through the array's write-intent bitmap: only the chunks written while the leg was away are
 * copied, a small part of the array (fio writes two small regions of it). Then nbdkit's memory
 * plugin, whose restart comes back blank: the leg's superblock is gone, so the re-add falls back
 * to md's add and the leg is rebuilt in full, still write-mostly.
 */
@Tag("real-client")
class RemoteLegTest {

    private static final Duration LONG = Duration.ofSeconds(120);
    private static final int MIB = 1 << 20;
    /** The legs' size. */
    private static final int SIZE_MIB = 48;
    /** What each of fio's two jobs writes, at the start of its half of the array. */
    private static final long REGION = 2L << 20;

    @TempDir
    Path tmp;

    /** The far end of the remote leg, stopped and started by the test. */
    interface RemoteServer extends AutoCloseable {
        String uri();

        void stop() throws Exception;

        void start() throws Exception;

        @Override
        void close() throws Exception;
    }

    @Test
    void anotherBlockworkExportingAVolume() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        int port = freePort();
        Map<String, Object> fixedPort = Map.of("blockwork.nbd.port", Integer.toString(port));
        try (RemoteServer b = new RemoteServer() {
            RunningService running = RunningService.start(dataDir, fixedPort);

            {
                ServiceClient api = running.client();
                created(api, "/api/v1/disks", "{\"name\":\"b-pv\",\"type\":\"file\",\"size\":\"" + (SIZE_MIB + 8) + "MiB\"}");
                created(api, "/api/v1/pools", "{\"name\":\"b-pool\",\"device\":\"b-pv\",\"extentSize\":\"1MiB\"}");
                created(api, "/api/v1/pools/b-pool/volumes", "{\"name\":\"b-vol\",\"size\":\"" + SIZE_MIB + "MiB\"}");
                created(api, "/api/v1/exports", "{\"name\":\"b-vol\",\"device\":\"b-vol\"}");
                assertThat(nbdPort(api)).isEqualTo(port);
            }

            @Override
            public String uri() {
                return "nbd://127.0.0.1:" + port + "/b-vol";
            }

            @Override
            public void stop() {
                running.close();
                running = null;
            }

            @Override
            public void start() {
                running = RunningService.start(dataDir, fixedPort);
            }

            @Override
            public void close() {
                if (running != null) {
                    running.close();
                }
            }
        }) {
            remoteLegSurvivesItsServersOutage(b, true);
        }
    }

    @Test
    void nbdkitsMemoryPlugin() throws Exception {
        Path socket = tmp.resolve("nbdkit.sock");
        try (RemoteServer k = new RemoteServer() {
            Process nbdkit;

            {
                start();
            }

            @Override
            public String uri() {
                return "nbd+unix:///?socket=" + socket;
            }

            @Override
            public void stop() {
                ExternalTool.stop(nbdkit);
                nbdkit = null;
            }

            @Override
            public void start() throws Exception {
                Files.deleteIfExists(socket);
                nbdkit = ExternalTool.startDaemon(tmp.resolve("nbdkit.log"), "nbdkit", "-f", "--exit-with-parent",
                        "-U", socket.toString(), "memory", SIZE_MIB + "M");
                await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(socket));
            }

            @Override
            public void close() {
                if (nbdkit != null) {
                    ExternalTool.stop(nbdkit);
                }
            }
        }) {
            remoteLegSurvivesItsServersOutage(k, false);
        }
    }

    /** {@code keepsData}: the server comes back with what it held (B), not blank (nbdkit's memory plugin). */
    private void remoteLegSurvivesItsServersOutage(RemoteServer remote, boolean keepsData) throws Exception {
        try (RunningService a = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = a.client();
            created(api, "/api/v1/disks", "{\"name\":\"remote\",\"type\":\"nbd\",\"uri\":\"" + remote.uri() + "\"}");
            created(api, "/api/v1/disks", "{\"name\":\"local\",\"type\":\"memory\",\"size\":\"" + SIZE_MIB + "MiB\"}");
            assertThat(Json.number(disk(api, "remote"), "sizeBytes")).isEqualTo((double) SIZE_MIB * MIB);
            assertThat(Json.at(disk(api, "remote"), "remote", "state")).isEqualTo("connected");
            created(api, "/api/v1/arrays", "{\"name\":\"md\",\"level\":\"raid1\",\"members\":[\"local\",\"remote\"],"
                    + "\"writeMostly\":[\"remote\"],\"assumeClean\":true}");
            created(api, "/api/v1/exports", "{\"name\":\"md\",\"device\":\"md\"}");
            String exportUri = "nbd://127.0.0.1:" + nbdPort(api) + "/md";

            double remoteReadsBefore = Json.number(disk(api, "remote"), "stats", "reads");
            // md's v1.2 superblocks (the default) take the data offset off the array's size
            long arrayBytes = ((Number) array(api, "md").get("sizeBytes")).longValue();
            long half = arrayBytes / 2;
            // paced (512 writes a job at 40 a second), so the run is still writing when the server goes away
            CompletableFuture<ExternalTool.Result> fio = CompletableFuture.supplyAsync(() -> ExternalTool.run(LONG,
                    "fio", "--name=remote-leg", "--ioengine=nbd", "--uri=" + exportUri, "--rw=randwrite", "--bs=4k",
                    "--iodepth=16", "--numjobs=2", "--size=" + REGION, "--offset_increment=" + half,
                    "--rate_iops=40", "--verify=crc32c", "--verify_fatal=1", "--verify_state_save=0",
                    "--output-format=json"));
            await().atMost(LONG).until(() -> Json.number(device(api, "md"), "stats", "writes") > 100);
            remote.stop();
            await().atMost(LONG).until(() -> "faulty".equals(memberState(api, "remote")));
            assertThat(fio.get().exitCode()).as("fio: %s", fio.get().stdout() + fio.get().stderr()).isZero();
            // fio prints notes before its JSON; every job wrote its half and read all of it back verified
            List<?> jobs = (List<?>) Json.at(Json.parseObject(fio.get().stdout()), "jobs");
            assertThat(jobs).hasSize(2);
            for (Object job : jobs) {
                assertThat(Json.number(job, "error")).isZero();
                assertThat(Json.number(job, "write", "io_bytes")).isEqualTo((double) REGION);
                assertThat(Json.number(job, "read", "io_bytes")).isEqualTo((double) REGION);
            }
            assertThat(String.valueOf(array(api, "md").get("arrayState"))).contains("degraded");
            assertThat(Json.number(disk(api, "remote"), "stats", "reads"))
                    .as("write-mostly: reads went to the local leg").isEqualTo(remoteReadsBefore);

            remote.start();
            await().atMost(LONG).until(() -> "connected".equals(Json.at(disk(api, "remote"), "remote", "state")));
            // mdadm --remove, then --re-add into the old slot (write-mostly kept)
            assertThat(api.send("DELETE", "/api/v1/arrays/md/members/remote")).isEqualTo(200);
            long recoveredBefore = ((Number) array(api, "md").get("recoveredBytes")).longValue();
            var reAdd = api.post("/api/v1/arrays/md/members/remote/re-add");
            assertThat(reAdd.statusCode()).as(reAdd.body()).isEqualTo(200);
            assertThat(member(api, "remote").get("writeMostly")).as("write-mostly right after the re-add").isEqualTo(true);
            await().atMost(LONG).until(() -> "in_sync".equals(memberState(api, "remote"))
                    && "idle".equals(Json.at(array(api, "md"), "sync", "action")));
            assertThat(member(api, "remote").get("writeMostly")).isEqualTo(true);
            long resynced = ((Number) array(api, "md").get("recoveredBytes")).longValue() - recoveredBefore;
            long chunk = ((Number) ((Map<?, ?>) array(api, "md").get("bitmap")).get("chunkBytes")).longValue();
            if (keepsData) {
                // through the bitmap: at most the chunks of fio's two regions (one more each at a
                // region's edge), a small part of the array
                assertThat(resynced).as("bytes resynced of %d", arrayBytes)
                        .isPositive().isLessThanOrEqualTo(2 * (REGION + chunk)).isLessThan(arrayBytes / 8);
            } else {
                // blank: rebuilt in full
                assertThat(resynced).as("bytes resynced").isGreaterThanOrEqualTo(arrayBytes);
            }

            // the legs' data areas, byte for byte (each leg's superblock, with its own device uuid and
            // role, lies before the data offset): free them (the data stays) and read both through A
            long offset = ((Number) array(api, "md").get("dataOffsetBytes")).longValue();
            assertThat(api.send("DELETE", "/api/v1/exports/md")).isEqualTo(204);
            assertThat(api.send("DELETE", "/api/v1/arrays/md")).isEqualTo(204);
            long used = (long) SIZE_MIB * MIB;
            for (long at = offset; at < used; at += 8 * MIB) {
                int n = (int) Math.min(8 * MIB, used - at);
                assertThat(read(api, "remote", at, n)).as("bytes %d..%d", at, at + n).isEqualTo(read(api, "local", at, n));
            }
        } finally {
            remote.close();
        }
    }

    private static Map<String, Object> disk(ServiceClient api, String name) throws Exception {
        return Json.parseObject(api.get("/api/v1/disks/" + name).body());
    }

    private static Map<String, Object> device(ServiceClient api, String name) throws Exception {
        return Json.parseObject(api.get("/api/v1/devices/" + name).body());
    }

    private static List<?> members(ServiceClient api) throws Exception {
        return (List<?>) array(api, "md").get("members");
    }

    private static Map<?, ?> member(ServiceClient api, String device) throws Exception {
        return members(api).stream().map(m -> (Map<?, ?>) m).filter(m -> device.equals(m.get("device")))
                .findFirst().orElseThrow();
    }

    private static String memberState(ServiceClient api, String device) throws Exception {
        return members(api).stream().map(m -> (Map<?, ?>) m).filter(m -> device.equals(m.get("device")))
                .map(m -> (String) m.get("state")).findFirst().orElse(null);
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
