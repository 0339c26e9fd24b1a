package io.blockwork.e2e;

import static io.blockwork.e2e.ExportEndToEndTest.TOOL_TIMEOUT;
import static io.blockwork.e2e.ExportEndToEndTest.nbdPort;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.Json;
import io.blockwork.support.TempDataDir;
import io.blockwork.support.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exports are stored and come back at start-up, after their devices; one whose device is gone is reported. */
@Tag("real-client")
class ExportRestartTest {

    @TempDir
    Path dir;

    @Test
    void aFileDiskAndItsExportComeBackReachableWithTheirData() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] content = new byte[8 << 20];
        new Random(7).nextBytes(content);
        Path image = dir.resolve("source.raw");
        Files.write(image, content);

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            assertThat(api.postJson("/api/v1/disks", "{\"name\":\"keep\",\"type\":\"file\",\"size\":\"8MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(api.postJson("/api/v1/exports", "{\"name\":\"kx\",\"device\":\"keep\",\"readOnly\":false}")
                    .statusCode()).isEqualTo(201);
            // qemu-img convert ends with a flush, which a file disk maps to fsync
            ExternalTool.run(TOOL_TIMEOUT, "qemu-img", "convert", "-n", "-f", "raw", "-O", "raw",
                    image.toString(), "nbd://127.0.0.1:" + nbdPort(api) + "/kx").requireSuccess();
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            String uri = "nbd://127.0.0.1:" + nbdPort(api) + "/kx";
            Object export = Json.parseObject(api.get("/api/v1/exports/kx").body());
            assertThat(Json.at(export, "state", "actual")).isEqualTo("active");
            assertThat(Json.at(export, "uri")).isEqualTo(uri);
            assertThat(api.get("/api/v1/devices/keep").body()).contains("\"holders\":[\"export kx\"]");
            assertThat(api.get("/api/v1/system/assembly").body())
                    .contains("\"kind\":\"export\",\"name\":\"kx\",\"dependsOn\":[\"disk keep\"]")
                    .doesNotContain("failed", "blocked");

            Object info = Json.at(Json.parseObject(
                    ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", "--json", uri).requireSuccess().stdout()), "exports", 0);
            assertThat(Json.number(info, "export-size")).isEqualTo(8 << 20);
            assertThat(ExternalTool.run(TOOL_TIMEOUT, "qemu-img", "compare", "-f", "raw", "-F", "raw",
                    image.toString(), uri).requireSuccess().stdout()).contains("Images are identical");
        }
    }

    @Test
    void anExportWhoseDeviceIsMissingIsReportedAndCanBeRemoved() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            assertThat(api.postJson("/api/v1/disks", "{\"name\":\"lost\",\"type\":\"file\",\"size\":\"1MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(api.postJson("/api/v1/disks", "{\"name\":\"dropped\",\"type\":\"memory\",\"size\":\"1MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(api.postJson("/api/v1/exports", "{\"name\":\"lx\",\"device\":\"lost\"}").statusCode())
                    .isEqualTo(201);
            assertThat(api.postJson("/api/v1/exports", "{\"name\":\"dx\",\"device\":\"dropped\"}").statusCode())
                    .isEqualTo(201);
        }
        // the file disk cannot be opened again; the other disk's row vanished behind the service's back
        Files.delete(dataDir.resolve("disks/lost.img"));
        try (Connection db = TestDatabase.current().connect(dataDir)) {
            db.createStatement().executeUpdate("DELETE FROM disks WHERE name = 'dropped'");
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            String lx = api.get("/api/v1/exports/lx").body();
            assertThat(lx).contains("\"actual\":\"blocked\"", "needs disk lost, which is failed")
                    .doesNotContain("\"uri\":\"nbd", "\"sizeBytes\"");
            assertThat(api.get("/api/v1/exports/dx").body())
                    .contains("\"actual\":\"blocked\"", "needs disk dropped, which is not configured");
            int port = nbdPort(api);
            assertThat(ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", "nbd://127.0.0.1:" + port + "/lx").exitCode())
                    .as("an export that is not active is not offered").isNotZero();
            // a repeat of its create confirms it as it is (blocked); another device is refused by name
            var repeat = api.postJson("/api/v1/exports", "{\"name\":\"lx\",\"device\":\"lost\"}");
            assertThat(repeat.statusCode()).isEqualTo(200);
            assertThat(repeat.body()).contains("\"actual\":\"blocked\"");
            assertThat(api.postJson("/api/v1/exports", "{\"name\":\"lx\",\"device\":\"dropped\"}").body())
                    .contains("name-taken", "differs");

            // the export still holds the failed disk: a plain delete is refused, force removes both
            assertThat(api.send("DELETE", "/api/v1/disks/lost")).isEqualTo(409);
            assertThat(api.send("DELETE", "/api/v1/disks/lost?force=true")).isEqualTo(204);
            assertThat(api.get("/api/v1/exports/lx").statusCode()).isEqualTo(404);
            assertThat(api.send("DELETE", "/api/v1/exports/dx")).isEqualTo(204);
            assertThat(api.get("/api/v1/exports").body()).isEqualTo("[]");
        }
    }
}
