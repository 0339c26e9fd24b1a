package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.Json;
import io.blockwork.nbd.RawNbdClient;
import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9: volume snapshots across a restart of the service on a file disk. The persistent
 * exception store on the COW space brings every exception back: each snapshot reads as its volume
 * was when it was taken, with the same exception count, after its volume in the assembly order;
 * and a merge after the restart rolls the volume back. A snapshot is exported read-only over NBD:
 * real clients read it and see READ_ONLY, writes get EPERM.
 */
@Tag("real-client")
class SnapshotRestartTest {

    private static final String VOLUMES = "/api/v1/pools/vg/volumes";
    private static final String SNAPSHOTS = VOLUMES + "/v/snapshots";
    private static final int KIB = 1024;
    private static final int SIZE = 1024 * KIB;
    private static final Duration TOOL_TIMEOUT = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    @Test
    void snapshotsComeBackWithEveryExceptionAndCanStillBeMerged() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] a = random(SIZE, 1);
        byte[] b = a.clone();
        System.arraycopy(random(256 * KIB, 2), 0, b, 128 * KIB, 256 * KIB);
        byte[] c = b.clone();
        System.arraycopy(random(64 * KIB, 3), 0, c, 0, 64 * KIB);
        String s1Before;
        String s2Before;

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient first = running.client();
            volumeWithData(first, "file", "8MiB", a);
            assertThat(first.postJson(SNAPSHOTS, "{\"name\":\"s1\",\"size\":\"1MiB\",\"chunkSize\":\"8KiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(first.put("/api/v1/devices/v/data?offset=" + 128 * KIB, slice(b, 128 * KIB, 256 * KIB))
                    .statusCode()).isEqualTo(204);
            assertThat(first.postJson(SNAPSHOTS, "{\"name\":\"s2\",\"size\":\"512KiB\"}").statusCode()).isEqualTo(201);
            assertThat(first.put("/api/v1/devices/v/data?offset=0", slice(c, 0, 64 * KIB)).statusCode()).isEqualTo(204);
            assertThat(first.post("/api/v1/devices/v/flush").statusCode()).isEqualTo(204);
            s1Before = shape(first.get(SNAPSHOTS + "/s1").body());
            s2Before = shape(first.get(SNAPSHOTS + "/s2").body());
            assertThat(s1Before).startsWith("active 40 "); // 32 + 8 chunks of 8 KiB
            assertThat(s2Before).startsWith("active 16 ");
            assertThat(first.getBytes("/api/v1/devices/s1/data?offset=0&length=" + SIZE).body()).isEqualTo(a);
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient second = running.client();
            String assembly = second.get("/api/v1/system/assembly").body();
            assertThat(assembly).doesNotContain("failed", "blocked");
            List<String> order = JsonPath.read(assembly, "$.objects[*].name");
            assertThat(order.indexOf("v")).isLessThan(order.indexOf("s1"));
            assertThat(assembly).contains("\"kind\":\"snapshot\",\"name\":\"s1\",\"dependsOn\":[\"volume v\"]");

            assertThat(shape(second.get(SNAPSHOTS + "/s1").body())).isEqualTo(s1Before);
            assertThat(shape(second.get(SNAPSHOTS + "/s2").body())).isEqualTo(s2Before);
            assertThat(second.getBytes("/api/v1/devices/s1/data?offset=0&length=" + SIZE).body()).isEqualTo(a);
            assertThat(second.getBytes("/api/v1/devices/s2/data?offset=0&length=" + SIZE).body()).isEqualTo(b);
            assertThat(second.getBytes("/api/v1/devices/v/data?offset=0&length=" + SIZE).body()).isEqualTo(c);
            assertThat(second.get(VOLUMES + "/v").body()).contains("\"attributes\":\"owi-a-----\"",
                    "\"table\":\"0 2048 snapshot-origin v-real\\n\"");

            // the origin still copies out: s2 keeps b when v is written again
            assertThat(second.put("/api/v1/devices/v/data?offset=" + 512 * KIB, random(64 * KIB, 4)).statusCode())
                    .isEqualTo(204);
            assertThat(second.getBytes("/api/v1/devices/s2/data?offset=0&length=" + SIZE).body()).isEqualTo(b);

            // roll back to s1, then only s2 is left
            assertThat(second.post(SNAPSHOTS + "/s1/merge").statusCode()).isEqualTo(202);
            assertThat(second.getBytes("/api/v1/devices/v/data?offset=0&length=" + SIZE).body()).isEqualTo(a);
            await().atMost(Duration.ofSeconds(60)).until(() -> second.get(SNAPSHOTS + "/s1").statusCode() == 404);
            assertThat(second.getBytes("/api/v1/devices/v/data?offset=0&length=" + SIZE).body()).isEqualTo(a);
            assertThat(second.getBytes("/api/v1/devices/s2/data?offset=0&length=" + SIZE).body()).isEqualTo(b);
        }
    }

    /**
     * A merge that cannot finish (the pool's disk refuses writes, an injected fault that lasts
     * until the restart) is still configured at the restart: the volume comes back merging, from
     * the exceptions on the COW space, and the merge completes.
     */
    @Test
    void aMergeThatWasRunningContinuesAfterARestart() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] a = random(SIZE, 7);
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient first = running.client();
            volumeWithData(first, "file", "8MiB", a);
            assertThat(first.postJson(SNAPSHOTS, "{\"name\":\"s\",\"size\":\"2MiB\"}").statusCode()).isEqualTo(201);
            assertThat(first.put("/api/v1/devices/v/data?offset=0", random(SIZE, 8)).statusCode()).isEqualTo(204);
            assertThat(first.post("/api/v1/devices/v/flush").statusCode()).isEqualTo(204);
            assertThat(first.send("PATCH", "/api/v1/disks/pv", "application/json",
                    "{\"faults\":{\"failWrites\":true}}").statusCode()).isEqualTo(200);
            assertThat(first.post(SNAPSHOTS + "/s/merge").statusCode()).isEqualTo(202);
            assertThat(first.get(VOLUMES + "/v").body()).contains("\"attributes\":\"Owi-a-----\"");
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient second = running.client();
            assertThat(second.get("/api/v1/system/assembly").body()).doesNotContain("failed", "blocked");
            assertThat(second.getBytes("/api/v1/devices/v/data?offset=0&length=" + SIZE).body()).isEqualTo(a);
            await().atMost(Duration.ofSeconds(60)).until(() -> second.get(SNAPSHOTS + "/s").statusCode() == 404);
            assertThat(second.getBytes("/api/v1/devices/v/data?offset=0&length=" + SIZE).body()).isEqualTo(a);
            assertThat(second.get(VOLUMES + "/v").body()).contains("\"attributes\":\"-wi-a-----\"",
                    "\"snapshots\":[]");
        }
    }

    @Test
    void aSnapshotExportedReadOnlyServesRealClientsAndRefusesWrites() throws Exception {
        byte[] a = random(SIZE, 5);
        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            volumeWithData(api, "memory", "4MiB", a);
            assertThat(api.postJson(SNAPSHOTS, "{\"name\":\"snap\",\"size\":\"2MiB\"}").statusCode()).isEqualTo(201);
            assertThat(api.put("/api/v1/devices/v/data?offset=0", random(SIZE, 6)).statusCode()).isEqualTo(204);

            var created = api.postJson("/api/v1/exports", "{\"device\":\"snap\",\"readOnly\":true}");
            assertThat(created.statusCode()).isEqualTo(201);
            assertThat(created.body()).contains("\"deviceKind\":\"snapshot\"", "\"readOnly\":true");
            int port = (int) Json.number(Json.parseObject(api.get("/api/v1/system").body()), "nbd", "port");
            String uri = "nbd://127.0.0.1:" + port + "/snap";

            Map<String, Object> info = Json.parseObject(
                    ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", "--json", uri).requireSuccess().stdout());
            Object export = Json.at(info, "exports", 0);
            assertThat(Json.at(export, "is_read_only")).isEqualTo(true);
            assertThat(Json.number(export, "export-size")).isEqualTo(SIZE);
            Path copy = dir.resolve("snap.raw");
            ExternalTool.run(TOOL_TIMEOUT, "qemu-img", "convert", "-f", "raw", "-O", "raw", uri, copy.toString())
                    .requireSuccess();
            assertThat(Files.readAllBytes(copy)).isEqualTo(a);

            try (RawNbdClient client = RawNbdClient.connect(port).greet().go("snap")) {
                assertThat(client.write(1, 0, new byte[4096], 0).error()).as("EPERM").isEqualTo(1);
                assertThat(client.read(2, 0, 4096).error()).isZero();
            }
            assertThat(api.getBytes("/api/v1/devices/snap/data?offset=0&length=" + SIZE).body()).isEqualTo(a);
        }
    }

    /** Disk pv of {@code type}, pool vg of 64 KiB extents on it, volume v of 1 MiB holding {@code data}. */
    private static void volumeWithData(ServiceClient api, String type, String diskSize, byte[] data) throws Exception {
        assertThat(api.postJson("/api/v1/disks", "{\"name\":\"pv\",\"type\":\"" + type + "\",\"size\":\""
                + diskSize + "\"}").statusCode()).isEqualTo(201);
        assertThat(api.postJson("/api/v1/pools", "{\"name\":\"vg\",\"device\":\"pv\",\"extentSize\":\"64KiB\"}")
                .statusCode()).isEqualTo(201);
        assertThat(api.postJson(VOLUMES, "{\"name\":\"v\",\"size\":\"1MiB\"}").statusCode()).isEqualTo(201);
        assertThat(api.put("/api/v1/devices/v/data?offset=0", data).statusCode()).isEqualTo(204);
    }

    /** What must survive a restart: state, exceptions, allocation and fill. */
    private static String shape(String json) {
        return JsonPath.read(json, "$.state") + " " + JsonPath.read(json, "$.exceptions") + " "
                + JsonPath.read(json, "$.allocatedBytes") + " " + JsonPath.read(json, "$.fillPercent") + " "
                + JsonPath.read(json, "$.chunkSizeBytes") + " " + JsonPath.read(json, "$.sizeBytes");
    }

    private static byte[] slice(byte[] b, int from, int length) {
        byte[] out = new byte[length];
        System.arraycopy(b, from, out, 0, length);
        return out;
    }

    private static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }
}
