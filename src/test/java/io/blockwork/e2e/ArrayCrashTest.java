package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static io.blockwork.e2e.ArrayCalls.array;
import static io.blockwork.e2e.ArrayCalls.created;
import static io.blockwork.e2e.ArrayCalls.member;
import static io.blockwork.e2e.ArrayCalls.members;
import static io.blockwork.e2e.ArrayCalls.random;
import static io.blockwork.e2e.ArrayCalls.read;
import static io.blockwork.e2e.ArrayCalls.settled;
import static io.blockwork.e2e.ArrayCalls.write;
import static org.awaitility.Awaitility.await;

import io.blockwork.nbd.Json;
import io.blockwork.support.TempDataDir;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * kill -9 of the service process at the moments md's superblocks are for (issue 17's acceptance
 * 2a and 2b): the members' superblocks, not the database, decide what comes back in sync.
 */
@Tag("real-client")
class ArrayCrashTest {

    private static final Duration LONG = Duration.ofSeconds(120);
    private static final int MIB = 1 << 20;

    /** Settled, and every member in sync. */
    private static boolean allInSync(ServiceClient api, String name) throws Exception {
        return settled(api, name) && members(array(api, name)).stream().allMatch(m -> "in_sync".equals(m.get("state")));
    }

    /** Writes the worst case into the killed service's database: the member is still recorded in sync. */
    private static void recordInSync(Path dataDir, String device) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dataDir.resolve("blockwork"), "sa", "");
             PreparedStatement s = c.prepareStatement("UPDATE array_members SET state = 'in_sync', fault_reason = NULL"
                     + " WHERE device_name = ?")) {
            s.setString(1, device);
            assertThat(s.executeUpdate()).isEqualTo(1);
        }
    }

    /**
     * 2a: a member fails on an I/O error and the service is killed right after the write that
     * found it is acknowledged. Even with the database still saying it is in sync, it comes back
     * stale (the survivor's superblock records it faulty), is rebuilt through the bitmap, and the
     * acknowledged data is there, on it too.
     */
    @Test
    void aMemberThatFailedJustBeforeAKillIsRebuiltAndTheAcknowledgedDataIsThere() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] before = random(1, MIB);
        byte[] acked = random(2, 64 * 1024);
        try (RunningService running = RunningService.startProcess(dataDir)) {
            ServiceClient api = running.client();
            for (int i = 0; i < 2; i++) {
                created(api, "/api/v1/disks", "{\"name\":\"ka" + i + "\",\"type\":\"file\",\"size\":\"16MiB\"}");
            }
            created(api, "/api/v1/arrays", "{\"name\":\"kam\",\"level\":\"raid1\",\"members\":[\"ka0\",\"ka1\"],"
                    + "\"bitmapDelay\":1,\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}");
            write(api, "kam", 0, before);
            await().atMost(LONG).until(() -> allInSync(api, "kam"));
            // the bitmap clears the first write's bits once they have been idle (two 1 s daemon passes,
            // mdadm's --delay); a degraded array keeps its bits, so the write after the failure stays marked
            await().atMost(LONG).until(() -> ((Number) Json.at(array(api, "kam"), "bitmap", "dirtyChunks")).intValue() == 0);
            assertThat(api.send("PATCH", "/api/v1/disks/ka1", "application/json", "{\"faults\":{\"failWrites\":true}}")
                    .statusCode()).isEqualTo(200);
            write(api, "kam", 8 * MIB, acked);
            running.kill();
        }
        recordInSync(dataDir, "ka1");

        try (RunningService running = RunningService.startProcess(dataDir)) {
            ServiceClient api = running.client();
            Map<String, Object> kam = array(api, "kam");
            assertThat(Json.at(kam, "state", "actual")).isEqualTo("active");
            assertThat(member(kam, "ka1").get("state")).as("never assembled in sync").isIn("rebuilding", "in_sync");
            await().atMost(LONG).until(() -> allInSync(api, "kam"));
            assertThat(((Number) array(api, "kam").get("recoveredBytes")).longValue())
                    .as("through the bitmap: the chunk written after the failure").isEqualTo(acked.length);
            assertThat(read(api, "kam", 8 * MIB, acked.length)).isEqualTo(acked);
            assertThat(read(api, "kam", 0, before.length)).isEqualTo(before);
            // the rebuilt member alone holds the data
            assertThat(api.post("/api/v1/arrays/kam/members/ka0/fail").statusCode()).isEqualTo(200);
            assertThat(read(api, "kam", 8 * MIB, acked.length)).isEqualTo(acked);
            assertThat(read(api, "kam", 0, before.length)).isEqualTo(before);
        }
    }

    /** 2b: the service is killed during a recovery; after the restart it carries on from its checkpoint and completes. */
    @Test
    void aRecoveryKilledHalfWayCarriesOnAfterTheRestart() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] data = random(3, 6 * MIB);
        long checkpoint;
        try (RunningService running = RunningService.startProcess(dataDir)) {
            ServiceClient api = running.client();
            for (int i = 0; i < 3; i++) {
                created(api, "/api/v1/disks", "{\"name\":\"kb" + i + "\",\"type\":\"file\",\"size\":\"32MiB\"}");
            }
            created(api, "/api/v1/arrays", "{\"name\":\"kbm\",\"level\":\"raid1\",\"members\":[\"kb0\",\"kb1\"],"
                    + "\"speedLimits\":{\"min\":\"200MiB\",\"max\":\"1GiB\"}}");
            write(api, "kbm", 4 * MIB, data);
            await().atMost(LONG).until(() -> allInSync(api, "kbm"));
            assertThat(api.post("/api/v1/arrays/kbm/members/kb1/fail").statusCode()).isEqualTo(200);
            assertThat(api.send("DELETE", "/api/v1/arrays/kbm/members/kb1")).isEqualTo(200);
            assertThat(api.send("PUT", "/api/v1/arrays/kbm/speed-limits", "application/json",
                    "{\"min\":\"2MiB\",\"max\":\"2MiB\"}").statusCode()).isEqualTo(200);
            created(api, "/api/v1/arrays/kbm/members", "{\"device\":\"kb2\"}");
            await().atMost(LONG).until(() -> recoveryOffset(api, "kb2") > 0);
            checkpoint = recoveryOffset(api, "kb2");
            running.kill();
        }

        try (RunningService running = RunningService.startProcess(dataDir)) {
            ServiceClient api = running.client();
            Map<String, Object> kbm = array(api, "kbm");
            assertThat(member(kbm, "kb2").get("state")).isIn("rebuilding", "in_sync");
            assertThat(api.send("PUT", "/api/v1/arrays/kbm/speed-limits", "application/json",
                    "{\"min\":\"200MiB\",\"max\":\"1GiB\"}").statusCode()).isEqualTo(200);
            await().atMost(LONG).until(() -> allInSync(api, "kbm"));
            long used = ((Number) array(api, "kbm").get("usedDevSizeBytes")).longValue();
            assertThat(((Number) array(api, "kbm").get("recoveredBytes")).longValue())
                    .as("carried on from the checkpoint at %d sectors", checkpoint).isLessThanOrEqualTo(used - checkpoint * 512);
            assertThat(api.post("/api/v1/arrays/kbm/members/kb0/fail").statusCode()).isEqualTo(200);
            assertThat(read(api, "kbm", 4 * MIB, data.length)).isEqualTo(data);
        }
    }

    /** The member's recovery offset as its superblock has it (0 while it has none). */
    private static long recoveryOffset(ServiceClient api, String device) throws Exception {
        Object offset = Json.at(Json.parseObject(api.get("/api/v1/devices/" + device + "/examine").body()),
                "superblock", "recoveryOffsetSectors");
        return offset == null ? 0 : ((Number) offset).longValue();
    }
}
