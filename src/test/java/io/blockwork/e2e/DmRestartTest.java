package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.support.TempDataDir;
import io.blockwork.support.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Mapped devices across a restart: tables (live and inactive), the suspended state, the
 * empty-flush strategy, stacking and the data on a file disk come back, assembled after the
 * devices their tables use; a device whose table cannot be built any more is reported failed with
 * the table's reason (and the device above it blocked) while the service starts anyway.
 */
@Tag("api")
class DmRestartTest {

    private static final String DM = "/api/v1/dm/devices";

    @Test
    void tablesSuspendedStateAndDataComeBack() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] data = new byte[1 << 20];
        new Random(5).nextBytes(data);

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient first = running.client();
            assertThat(first.postJson("/api/v1/disks", "{\"name\":\"keep\",\"type\":\"file\",\"size\":\"8MiB\"}")
                    .statusCode()).isEqualTo(201);
            // lin: the disk's second half; top: lin's first 2 MiB
            assertThat(first.postJson(DM, """
                    {"name":"lin","uuid":"BW-lin","table":"0 8192 linear keep 8192","strategies":{"flush":"per-target","batchDispatch":"timer","snapshotLocking":"global"}}""")
                    .statusCode()).isEqualTo(201);
            assertThat(first.postJson(DM, "{\"name\":\"top\",\"table\":[{\"start\":0,\"length\":4096,"
                    + "\"target\":\"linear\",\"args\":[\"lin\",\"0\"]}]}").statusCode()).isEqualTo(201);
            assertThat(first.put("/api/v1/devices/top/data?offset=1048576", data).statusCode()).isEqualTo(204);
            assertThat(first.post("/api/v1/devices/top/flush").statusCode()).isEqualTo(204);
            assertThat(send(first, "PUT", DM + "/lin/table", "text/plain", "0 8192 linear keep 8192\n8192 2048 zero\n")
                    .statusCode()).isEqualTo(200);
            assertThat(first.post(DM + "/lin/suspend?noflush=true").statusCode()).isEqualTo(200);
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient second = running.client();
            String assembly = second.get("/api/v1/system/assembly").body();
            assertThat(assembly).doesNotContain("failed", "blocked");
            assertThat(assembly.indexOf("\"name\":\"keep\"")).isLessThan(assembly.indexOf("\"name\":\"lin\""));
            assertThat(assembly.indexOf("\"name\":\"lin\"")).isLessThan(assembly.indexOf("\"name\":\"top\""));
            assertThat(assembly).contains("\"dependsOn\":[\"disk keep\"]", "\"dependsOn\":[\"dm lin\"]");

            String lin = second.get(DM + "/lin").body();
            assertThat(lin).contains("\"uuid\":\"BW-lin\"", "\"state\":\"suspended\"", "\"openCount\":1",
                    "\"table\":\"0 8192 linear keep 8192\\n\"",
                    "\"inactiveTable\":\"0 8192 linear keep 8192\\n8192 2048 zero\\n\"",
                    "\"flush\":\"per-target\"", "\"batchDispatch\":\"timer\"", "\"snapshotLocking\":\"global\"",
                    "\"actual\":\"active\"");
            assertThat(second.get(DM + "/top/table").body()).isEqualTo("0 4096 linear lin 0\n");
            assertThat(second.get("/api/v1/devices/keep").body()).contains("\"holders\":[\"dm lin\"]");
            assertThat(second.get("/api/v1/devices/lin").body()).contains("\"holders\":[\"dm top\"]");

            assertThat(second.post(DM + "/lin/resume").body()).contains("\"sizeBytes\":" + (5 << 20));
            var back = second.getBytes("/api/v1/devices/top/data?offset=1048576&length=1048576");
            assertThat(back.statusCode()).isEqualTo(200);
            assertThat(back.body()).isEqualTo(data);
        }
    }

    @Test
    void aTableThatCannotBeBuiltFailsItsDeviceNotTheStart() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient first = running.client();
            assertThat(first.postJson("/api/v1/disks", "{\"name\":\"small\",\"type\":\"memory\",\"size\":\"1MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(first.postJson(DM, "{\"name\":\"over\",\"table\":\"0 2048 linear small 0\"}").statusCode())
                    .isEqualTo(201);
            assertThat(first.postJson(DM, "{\"name\":\"above\",\"table\":\"0 2048 linear over 0\"}").statusCode())
                    .isEqualTo(201);
        }
        try (Connection db = TestDatabase.current().connect(dataDir)) {
            db.createStatement().executeUpdate(
                    "UPDATE dm_devices SET live_table = '0 4096 linear small 0' WHERE name = 'over'");
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient second = running.client();
            String over = second.get(DM + "/over").body();
            assertThat(over).contains("\"actual\":\"failed\"", "line 1: ", "too small", "\"table\":\"0 4096 linear small 0\"")
                    .doesNotContain("\"info\"");
            assertThat(second.get(DM + "/above").body()).contains("\"actual\":\"blocked\"", "needs dm over, which is failed");
            assertThat(second.get("/api/v1/system/assembly").body()).contains("\"actual\":\"failed\"");
            assertThat(second.postJson(DM, "{\"name\":\"over\",\"table\":\"0 8 zero\"}").body()).contains("name-taken");
            assertThat(second.post(DM + "/over/resume").statusCode()).isEqualTo(409);
            assertThat(second.postJson(DM + "/over/rename", "{\"newName\":\"over2\"}").statusCode()).isEqualTo(409);
            assertThat(second.get(DM + "/over/table").body()).isEqualTo("0 4096 linear small 0");
            // the disk is not held by a device that is not active; both devices can be deleted
            assertThat(second.get("/api/v1/devices/small").body()).contains("\"holders\":[]");
            assertThat(second.send("DELETE", DM + "/above")).isEqualTo(204);
            assertThat(second.send("DELETE", DM + "/over")).isEqualTo(204);
            assertThat(second.get("/api/v1/devices/over").statusCode()).isEqualTo(404);
        }
    }

    private static HttpResponse<String> send(ServiceClient client, String method, String path, String contentType,
                                             String body) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            String auth = "Basic " + Base64.getEncoder().encodeToString(
                    ("admin:" + TempDataDir.ADMIN_PASSWORD).getBytes(StandardCharsets.UTF_8));
            return http.send(HttpRequest.newBuilder(URI.create(client.baseUrl() + path)).header("Authorization", auth)
                    .header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }
}
