package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.support.TempDataDir;
import io.blockwork.support.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3: the service stopped and started again on the same data dir brings its disks back,
 * file disks with their data, memory disks empty; and a disk it cannot assemble is reported, not fatal.
 */
@Tag("api")
class RestartTest {

    @Test
    void fileDiskDataSurvivesARestartAndMemoryDisksComeBackEmpty() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] data = new byte[1 << 20];
        new Random(42).nextBytes(data);

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient first = running.client();
            assertThat(first.postJson("/api/v1/disks", "{\"name\":\"keep\",\"type\":\"file\",\"size\":\"8MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(first.postJson("/api/v1/disks", "{\"name\":\"ram\",\"type\":\"memory\",\"size\":\"8MiB\","
                    + "\"cache\":\"writeback\",\"latency\":{\"flush\":\"1ms\"}}").statusCode()).isEqualTo(201);
            assertThat(first.put("/api/v1/devices/keep/data?offset=4194304", data).statusCode()).isEqualTo(204);
            assertThat(first.put("/api/v1/devices/ram/data?offset=0", data).statusCode()).isEqualTo(204);
            assertThat(first.post("/api/v1/devices/keep/flush").statusCode()).isEqualTo(204);
        }
        if (TestDatabase.current() == TestDatabase.H2) {
            assertThat(dataDir.resolve("blockwork.mv.db")).exists();
        }
        assertThat(dataDir.resolve("disks/keep.img")).exists();

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient second = running.client();
            var keep = second.getBytes("/api/v1/devices/keep/data?offset=4194304&length=1048576");
            assertThat(keep.statusCode()).isEqualTo(200);
            assertThat(keep.body()).isEqualTo(data);
            var ram = second.getBytes("/api/v1/devices/ram/data?offset=0&length=1048576");
            assertThat(ram.body()).isEqualTo(new byte[1 << 20]);
            String disk = second.get("/api/v1/disks/ram").body();
            assertThat(disk).contains("\"keepsData\":false", "\"cache\":\"writeback\"", "\"flush\":\"1ms\"");
            assertThat(second.get("/api/v1/system/assembly").body())
                    .contains("\"name\":\"keep\"", "\"name\":\"ram\"").doesNotContain("failed");
        }
    }

    @Test
    void disksThatCannotBeAssembledAreReportedAndKeepTheirNames() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient first = running.client();
            assertThat(first.postJson("/api/v1/disks", "{\"name\":\"lost\",\"type\":\"file\",\"size\":\"1MiB\"}")
                    .statusCode()).isEqualTo(201);
        }
        Files.delete(dataDir.resolve("disks/lost.img"));
        try (Connection db = TestDatabase.current().connect(dataDir)) {
            db.createStatement().executeUpdate("INSERT INTO disks (name, type, size_bytes, logical_block_size,"
                    + " cache_mode, read_latency_nanos, write_latency_nanos, flush_latency_nanos, jitter_nanos,"
                    + " queue_depth, flush_strategy, created_at) VALUES ('odd', 'memory', 1048576, 512,"
                    + " 'sometimes', 0, 0, 0, 0, 0, 'merged', CURRENT_TIMESTAMP)");
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient second = running.client();
            String disk = second.get("/api/v1/disks/lost").body();
            assertThat(disk).contains("\"actual\":\"failed\"", "lost.img is missing");
            assertThat(second.get("/api/v1/system/assembly").body()).contains("\"actual\":\"failed\"");
            assertThat(second.get("/api/v1/devices/odd").body()).contains("\"actual\":\"failed\"", "sometimes");
            assertThat(second.postJson("/api/v1/disks", "{\"name\":\"lost\",\"type\":\"memory\",\"size\":\"1MiB\"}")
                    .body()).contains("name-taken");
            assertThat(second.getBytes("/api/v1/devices/lost/data?offset=0&length=512").statusCode()).isEqualTo(409);
            assertThat(second.send("DELETE", "/api/v1/disks/lost")).isEqualTo(204);
            assertThat(second.get("/api/v1/devices/lost").statusCode()).isEqualTo(404);
        }
    }
}
