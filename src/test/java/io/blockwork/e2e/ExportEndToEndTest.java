package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.Json;
import io.blockwork.nbd.RawNbdClient;
import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service as users run it: a memory disk and its export made over HTTP, then real NBD
 * clients (nbdinfo, qemu-img) against the service's own NBD port; deleting the export
 * disconnects a connected client and refuses the next one.
 */
@Tag("real-client")
class ExportEndToEndTest {

    static final Duration TOOL_TIMEOUT = Duration.ofMinutes(2);
    private static final int SIZE = 16 << 20;

    @TempDir
    Path dir;

    @Test
    void realClientsReadAndWriteAnExportMadeOverRest() throws Exception {
        byte[] content = new byte[SIZE];
        new Random(66).nextBytes(content);
        Arrays.fill(content, 4 << 20, 6 << 20, (byte) 0);
        Path image = dir.resolve("source.raw");
        Files.write(image, content);

        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            assertThat(api.postJson("/api/v1/disks", "{\"name\":\"e2e-mem\",\"type\":\"memory\",\"size\":\"16MiB\"}")
                    .statusCode()).isEqualTo(201);
            var created = api.postJson("/api/v1/exports",
                    "{\"name\":\"e2e\",\"device\":\"e2e-mem\",\"description\":\"end to end\"}");
            assertThat(created.statusCode()).isEqualTo(201);
            assertThat(created.headers().firstValue("Location")).contains("/api/v1/exports/e2e");
            int port = nbdPort(api);
            String uri = "nbd://127.0.0.1:" + port + "/e2e";
            assertThat(Json.at(Json.parseObject(created.body()), "uri")).isEqualTo(uri);

            Map<String, Object> info = Json.parseObject(
                    ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", "--json", uri).requireSuccess().stdout());
            Object export = Json.at(info, "exports", 0);
            assertThat(Json.number(export, "export-size")).isEqualTo(SIZE);
            assertThat(Json.at(export, "is_read_only")).isEqualTo(false);
            assertThat(Json.at(export, "description")).isEqualTo("end to end");

            ExternalTool.run(TOOL_TIMEOUT, "qemu-img", "convert", "-n", "-f", "raw", "-O", "raw",
                    image.toString(), uri).requireSuccess();
            assertThat(ExternalTool.run(TOOL_TIMEOUT, "qemu-img", "compare", "-f", "raw", "-F", "raw",
                    image.toString(), uri).requireSuccess().stdout()).contains("Images are identical");
            Map<String, Object> qinfo = Json.parseObject(ExternalTool.run(TOOL_TIMEOUT, "qemu-img", "info",
                    "--output=json", uri).requireSuccess().stdout());
            assertThat(Json.number(qinfo, "virtual-size")).isEqualTo(SIZE);
            // what qemu wrote is what the service reads back over HTTP
            var back = api.getBytes("/api/v1/devices/e2e-mem/data?offset=8388608&length=1048576");
            assertThat(back.body()).isEqualTo(Arrays.copyOfRange(content, 8 << 20, 9 << 20));

            try (RawNbdClient connected = RawNbdClient.connect(port).greet().go("e2e")) {
                assertThat(connected.read(1, 0, 4096).error()).isZero();
                Object listed = Json.at(Json.parse(api.get("/api/v1/exports").body()), 0);
                @SuppressWarnings("unchecked")
                List<Object> clients = (List<Object>) Json.at(listed, "clients");
                assertThat(clients).hasSize(1);
                assertThat((String) Json.at(clients.getFirst(), "remoteAddress")).startsWith("127.0.0.1:");

                assertThat(api.send("DELETE", "/api/v1/exports/e2e")).isEqualTo(204);
                assertThat(connected.closedAfterDraining()).as("the connected client is disconnected").isTrue();
            }
            ExternalTool.Result refused = ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", uri);
            assertThat(refused.exitCode()).isNotZero();
            assertThat(refused.stderr()).contains("No such file or directory");
            assertThat(api.get("/api/v1/exports").body()).isEqualTo("[]");
            // the device outlives its export
            assertThat(api.get("/api/v1/devices/e2e-mem").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void forcedDiskDeletionDropsTheExportAndItsClient() throws Exception {
        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            assertThat(api.postJson("/api/v1/disks", "{\"name\":\"fd\",\"type\":\"memory\",\"size\":\"1MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(api.postJson("/api/v1/exports", "{\"device\":\"fd\"}").statusCode()).isEqualTo(201);
            int port = nbdPort(api);
            try (RawNbdClient connected = RawNbdClient.connect(port).greet().go("fd")) {
                var busy = api.get("/api/v1/devices/fd");
                assertThat(busy.body()).contains("\"holders\":[\"export fd\"]");
                assertThat(api.send("DELETE", "/api/v1/disks/fd")).isEqualTo(409);
                assertThat(connected.read(1, 0, 512).error()).as("a refused delete leaves clients alone").isZero();

                assertThat(api.send("DELETE", "/api/v1/disks/fd?force=true")).isEqualTo(204);
                assertThat(connected.closedAfterDraining()).isTrue();
            }
            assertThat(api.get("/api/v1/exports/fd").statusCode()).isEqualTo(404);
            assertThat(ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", "nbd://127.0.0.1:" + port + "/fd").exitCode())
                    .isNotZero();
        }
    }

    /** The NBD port the running service reports (it listens on a free port in tests). */
    static int nbdPort(ServiceClient api) throws Exception {
        return (int) Json.number(Json.parseObject(api.get("/api/v1/system").body()), "nbd", "port");
    }
}
