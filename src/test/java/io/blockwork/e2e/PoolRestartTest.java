package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.support.TempDataDir;
import io.blockwork.support.TestDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 7, acceptance 3: pools and volumes across a restart. A pool comes back after its disk, its
 * volumes after it, each with the table rebuilt from its segments, and the data on a file disk is
 * intact, through every segment; exports of volumes come back after them. A pool that cannot come
 * back is failed with its reason, its volumes blocked, and the service starts anyway.
 */
@Tag("api")
class PoolRestartTest {

    private static final String VG = "/api/v1/pools/vg";
    private static final int MIB = 1 << 20;

    @Test
    void poolsAndVolumesComeBackWithTheirData() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] a = random(2 * MIB, 1);
        byte[] c = random(MIB / 2, 2);
        String aBefore;
        String cBefore;
        String poolBefore;

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient first = running.client();
            assertThat(first.postJson("/api/v1/disks", "{\"name\":\"keep\",\"type\":\"file\",\"size\":\"8MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(first.postJson("/api/v1/pools", "{\"name\":\"vg\",\"device\":\"keep\",\"extentSize\":\"64KiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(first.postJson(VG + "/volumes", "{\"name\":\"a\",\"size\":\"1MiB\"}").statusCode()).isEqualTo(201);
            assertThat(first.postJson(VG + "/volumes", "{\"name\":\"b\",\"size\":\"512KiB\"}").statusCode()).isEqualTo(201);
            // b follows a, so a grows into a second segment
            HttpResponse<String> grown = patch(first, VG + "/volumes/a", "{\"size\":\"+1MiB\"}");
            assertThat(grown.statusCode()).isEqualTo(200);
            assertThat(grown.body()).contains("\"segmentCount\":2");
            assertThat(patch(first, VG + "/volumes/b", "{\"name\":\"c\"}").statusCode()).isEqualTo(200);
            assertThat(first.put("/api/v1/devices/a/data?offset=0", a).statusCode()).isEqualTo(204);
            assertThat(first.put("/api/v1/devices/c/data?offset=0", c).statusCode()).isEqualTo(204);
            assertThat(first.post("/api/v1/devices/a/flush").statusCode()).isEqualTo(204);
            assertThat(first.postJson("/api/v1/exports", "{\"device\":\"a\"}").statusCode()).isEqualTo(201);
            aBefore = volumeShape(first.get(VG + "/volumes/a").body());
            cBefore = volumeShape(first.get(VG + "/volumes/c").body());
            poolBefore = poolShape(first.get(VG).body());
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient second = running.client();
            String assembly = second.get("/api/v1/system/assembly").body();
            assertThat(assembly).doesNotContain("failed", "blocked");
            List<String> order = JsonPath.read(assembly, "$.objects[*].name");
            assertThat(order.indexOf("keep")).isLessThan(order.indexOf("vg"));
            assertThat(order.indexOf("vg")).isLessThan(order.indexOf("a"));
            assertThat(order.indexOf("vg")).isLessThan(order.indexOf("c"));
            assertThat(assembly).contains("\"kind\":\"pool\",\"name\":\"vg\",\"dependsOn\":[\"disk keep\"]",
                    "\"kind\":\"volume\",\"name\":\"a\",\"dependsOn\":[\"pool vg\"]");

            assertThat(volumeShape(second.get(VG + "/volumes/a").body())).isEqualTo(aBefore);
            assertThat(volumeShape(second.get(VG + "/volumes/c").body())).isEqualTo(cBefore);
            assertThat(poolShape(second.get(VG).body())).isEqualTo(poolBefore);
            assertThat(second.get("/api/v1/volumes").body()).contains("\"attributes\":\"-wi-ao----\"",
                    "\"attributes\":\"-wi-a-----\"");
            assertThat(second.getBytes("/api/v1/devices/a/data?offset=0&length=" + a.length).body()).isEqualTo(a);
            assertThat(second.getBytes("/api/v1/devices/c/data?offset=0&length=" + c.length).body()).isEqualTo(c);
            assertThat(second.get("/api/v1/devices/keep").body()).contains("\"holders\":[\"pool vg\"]");
            assertThat(second.get("/api/v1/exports/a").body()).contains("\"sizeBytes\":" + (2 * MIB));

            // and it keeps working: grow a again, into the space after c
            HttpResponse<String> grown = patch(second, VG + "/volumes/a", "{\"size\":\"3MiB\"}");
            assertThat(grown.statusCode()).isEqualTo(200);
            assertThat(second.getBytes("/api/v1/devices/a/data?offset=0&length=" + a.length).body()).isEqualTo(a);
        }
    }

    @Test
    void aPoolThatCannotComeBackBlocksItsVolumesNotTheStart() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient first = running.client();
            assertThat(first.postJson("/api/v1/disks", "{\"name\":\"small\",\"type\":\"memory\",\"size\":\"1MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(first.postJson("/api/v1/pools", "{\"name\":\"vg\",\"device\":\"small\",\"extentSize\":\"64KiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(first.postJson(VG + "/volumes", "{\"name\":\"v\",\"size\":\"256KiB\"}").statusCode()).isEqualTo(201);
        }
        // as if the disk had shrunk under the pool
        try (Connection db = TestDatabase.current().connect(dataDir)) {
            db.createStatement().executeUpdate("UPDATE disks SET size_bytes = 524288 WHERE name = 'small'");
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient second = running.client();
            assertThat(second.get(VG).body()).contains("\"actual\":\"failed\"", "its device small has 524288 bytes");
            assertThat(second.get(VG + "/volumes/v").body()).contains("\"actual\":\"blocked\"",
                    "needs pool vg, which is failed", "\"attributes\":\"-wi-------\"");
            assertThat(second.postJson(VG + "/volumes", "{\"name\":\"w\",\"size\":\"64KiB\"}").body())
                    .contains("\"code\":\"conflict\"", "pool vg is not active");
            assertThat(second.postJson("/api/v1/disks", "{\"name\":\"v\",\"type\":\"memory\",\"size\":\"1MiB\"}").body())
                    .contains("name-taken");
            // the pool still holds its disk; deleting the volume, then the pool, lets it go
            assertThat(second.send("DELETE", "/api/v1/disks/small")).isEqualTo(409);
            assertThat(second.send("DELETE", VG + "/volumes/v")).isEqualTo(204);
            assertThat(second.send("DELETE", VG)).isEqualTo(204);
            assertThat(second.send("DELETE", "/api/v1/disks/small")).isEqualTo(204);
        }
    }

    /** What must survive a restart: size, segments and table. */
    private static String volumeShape(String json) {
        return JsonPath.read(json, "$.sizeBytes").toString() + " " + JsonPath.read(json, "$.segments").toString() + " "
                + JsonPath.read(json, "$.table");
    }

    private static String poolShape(String json) {
        return JsonPath.read(json, "$.extents").toString() + " " + JsonPath.read(json, "$.largestFreeRun").toString()
                + " " + JsonPath.read(json, "$.volumes").toString();
    }

    private static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static HttpResponse<String> patch(ServiceClient client, String path, String json) throws Exception {
        return client.send("PATCH", path, "application/json", json);
    }
}
