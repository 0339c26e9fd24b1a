package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19 end to end, against the real service: a 1 TiB thin volume on a pool of a few hundred
 * MiB takes a 64 MiB image from qemu-img over NBD and compares equal, the pool then reports about
 * 64 MiB used (acceptance 3); and a thin pool carved from a classic pool on file disks, with a
 * volume, a snapshot and a snapshot of the snapshot, comes back whole after a restart (scope 5).
 */
@Tag("real-client")
class ThinEndToEndTest {

    private static final Duration TOOL_TIMEOUT = Duration.ofMinutes(3);
    private static final int IMAGE = 64 << 20;
    private static final int KIB = 1024;

    @TempDir
    Path dir;

    @Test
    void aTerabyteThinVolumeTakesA64MiBImageOverNbdAndThePoolShowsWhatItUses() throws Exception {
        byte[] content = random(IMAGE, 19);
        Path image = dir.resolve("image.raw");
        Files.write(image, content);
        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            assertThat(api.postJson("/api/v1/disks", "{\"name\":\"tdata\",\"type\":\"memory\",\"size\":\"256MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(api.postJson("/api/v1/disks", "{\"name\":\"tmeta\",\"type\":\"memory\",\"size\":\"16MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(api.postJson("/api/v1/pools", "{\"name\":\"thin\",\"type\":\"thin\",\"dataDevice\":\"tdata\","
                    + "\"metadataDevice\":\"tmeta\"}").statusCode()).isEqualTo(201);
            var created = api.postJson("/api/v1/pools/thin/volumes", "{\"name\":\"big\",\"size\":\"1TiB\"}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            assertThat(api.postJson("/api/v1/exports", "{\"device\":\"big\"}").statusCode()).isEqualTo(201);
            int port = JsonPath.read(api.get("/api/v1/system").body(), "$.nbd.port");
            String uri = "nbd://127.0.0.1:" + port + "/big";

            ExternalTool.run(TOOL_TIMEOUT, "qemu-img", "convert", "-n", "-f", "raw", "-O", "raw", image.toString(), uri)
                    .requireSuccess();
            // Compare the image with the volume's first 64 MiB (the raw driver's size option), not the whole terabyte.
            ExternalTool.Result cmp = ExternalTool.run(TOOL_TIMEOUT, "qemu-img", "compare", "--image-opts",
                    "driver=raw,file.driver=file,file.filename=" + image,
                    "driver=raw,size=" + IMAGE + ",file.driver=nbd,file.server.type=inet,file.server.host=127.0.0.1,"
                            + "file.server.port=" + port + ",file.export=big").requireSuccess();
            assertThat(cmp.stdout()).contains("Images are identical");
            assertThat(api.getBytes("/api/v1/devices/big/data?offset=" + (IMAGE - 4096) + "&length=4096").body())
                    .isEqualTo(java.util.Arrays.copyOfRange(content, IMAGE - 4096, IMAGE));

            String pool = api.get("/api/v1/pools/thin").body();
            long used = ((Number) JsonPath.read(pool, "$.usedBytes")).longValue();
            assertThat(used).as("the pool uses about what was written").isBetween((long) IMAGE, IMAGE + (1L << 20));
            assertThat(((Number) JsonPath.read(pool, "$.thin.virtualBytes")).longValue()).isEqualTo(1L << 40);
            assertThat(((Number) JsonPath.read(pool, "$.thin.dataPercent")).doubleValue()).isBetween(25.0, 25.5);
            String volume = api.get("/api/v1/pools/thin/volumes/big").body();
            assertThat(((Number) JsonPath.read(volume, "$.allocatedBytes")).longValue()).isEqualTo(used);
            assertThat(JsonPath.<String>read(volume, "$.attributes")).isEqualTo("Vwi-aotz--");
        }
    }

    @Test
    void aThinPoolWithSnapshotsOfSnapshotsComesBackAfterARestart() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] a = random(1024 * KIB, 1);
        byte[] b = a.clone();
        System.arraycopy(random(192 * KIB, 2), 0, b, 64 * KIB, 192 * KIB);
        byte[] c = b.clone();
        System.arraycopy(random(64 * KIB, 3), 0, c, 0, 64 * KIB);
        String snaps = "/api/v1/pools/tp/volumes/v/snapshots";
        String poolBefore;
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            assertThat(api.postJson("/api/v1/disks", "{\"name\":\"pv\",\"type\":\"file\",\"size\":\"32MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(api.postJson("/api/v1/pools", "{\"name\":\"vg\",\"device\":\"pv\",\"extentSize\":\"1MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(api.postJson("/api/v1/pools", "{\"name\":\"tp\",\"type\":\"thin\",\"from\":\"vg\",\"size\":\"16MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(api.postJson("/api/v1/pools/tp/volumes", "{\"name\":\"v\",\"size\":\"1GiB\"}").statusCode())
                    .isEqualTo(201);
            assertThat(api.put("/api/v1/devices/v/data?offset=0", a).statusCode()).isEqualTo(204);
            assertThat(api.postJson(snaps, "{\"name\":\"s1\"}").statusCode()).isEqualTo(201);
            assertThat(api.put("/api/v1/devices/v/data?offset=" + 64 * KIB, slice(b, 64 * KIB, 192 * KIB)).statusCode())
                    .isEqualTo(204);
            assertThat(api.postJson(snaps, "{\"name\":\"s2\"}").statusCode()).isEqualTo(201);
            assertThat(api.postJson(snaps, "{\"name\":\"s3\",\"source\":\"s1\"}").statusCode()).isEqualTo(201);
            assertThat(api.put("/api/v1/devices/v/data?offset=0", slice(c, 0, 64 * KIB)).statusCode()).isEqualTo(204);
            assertThat(api.post("/api/v1/devices/v/flush").statusCode()).isEqualTo(204);
            poolBefore = usage(api.get("/api/v1/pools/tp").body());
            assertThat(poolBefore).startsWith("1310720 ");  // 16 + 3 + 1 chunks of 64 KiB
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            String assembly = api.get("/api/v1/system/assembly").body();
            assertThat(assembly).doesNotContain("failed", "blocked");
            List<String> order = JsonPath.read(assembly, "$.objects[*].name");
            assertThat(order.indexOf("vg")).isLessThan(order.indexOf("tp"));
            assertThat(order.indexOf("tp")).isLessThan(order.indexOf("s3"));
            assertThat(usage(api.get("/api/v1/pools/tp").body())).isEqualTo(poolBefore);
            assertThat(api.getBytes("/api/v1/devices/v/data?offset=0&length=" + a.length).body()).isEqualTo(c);
            assertThat(api.getBytes("/api/v1/devices/s1/data?offset=0&length=" + a.length).body()).isEqualTo(a);
            assertThat(api.getBytes("/api/v1/devices/s2/data?offset=0&length=" + a.length).body()).isEqualTo(b);
            assertThat(api.getBytes("/api/v1/devices/s3/data?offset=0&length=" + a.length).body()).isEqualTo(a);
            String listed = api.get(snaps).body();
            assertThat(JsonPath.<List<String>>read(listed, "$[*].source")).containsExactly("v", "v", "s1");
            assertThat(JsonPath.<List<String>>read(listed, "$[*].type")).containsOnly("thin");

            // new writes after the restart still break sharing, and a merge still rolls back
            assertThat(api.put("/api/v1/devices/v/data?offset=0", random(64 * KIB, 4)).statusCode()).isEqualTo(204);
            assertThat(api.getBytes("/api/v1/devices/s2/data?offset=0&length=" + a.length).body()).isEqualTo(b);
            assertThat(api.post(snaps + "/s2/merge").statusCode()).isEqualTo(202);
            assertThat(api.getBytes("/api/v1/devices/v/data?offset=0&length=" + a.length).body()).isEqualTo(b);
        }
    }

    /** Used data bytes, virtual bytes and transaction id of a pool. */
    private static String usage(String json) {
        return JsonPath.read(json, "$.usedBytes") + " " + JsonPath.read(json, "$.thin.virtualBytes") + " "
                + JsonPath.read(json, "$.thin.dataPercent");
    }

    private static byte[] slice(byte[] b, int from, int length) {
        return java.util.Arrays.copyOfRange(b, from, from + length);
    }

    private static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }
}
