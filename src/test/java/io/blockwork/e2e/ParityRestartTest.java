package io.blockwork.e2e;

import org.junit.jupiter.api.Tag;
import static io.blockwork.e2e.ArrayRestartTest.array;
import static io.blockwork.e2e.ArrayRestartTest.created;
import static io.blockwork.e2e.ArrayRestartTest.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.nbd.Json;
import io.blockwork.support.TempDataDir;
import io.blockwork.support.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * raid5 across restarts: a clean stop is written down and the next start trusts the parity; a
 * stop that was not clean (the row still says "dirty", as a kill -9 leaves it) makes the array
 * resync when it starts, unless it has a write journal, whose replay makes every stripe whole.
 */
@Tag("real-client")
class ParityRestartTest {

    private static final Duration LONG = Duration.ofSeconds(90);
    private static final int MIB = 1 << 20;

    private static boolean dirty(Path dataDir, String array) throws Exception {
        try (Connection c = TestDatabase.current().connect(dataDir);
             ResultSet rs = c.createStatement().executeQuery("SELECT dirty FROM arrays WHERE name = '" + array + "'")) {
            assertThat(rs.next()).isTrue();
            return rs.getBoolean(1);
        }
    }

    /** What a crash leaves: the rows of running arrays still say dirty. */
    private static void crashed(Path dataDir) throws Exception {
        try (Connection c = TestDatabase.current().connect(dataDir)) {
            c.createStatement().executeUpdate("UPDATE arrays SET dirty = TRUE");
        }
    }

    @Test
    void aCleanStopIsTrustedAnUncleanOneResyncsAndAJournalReplaysInstead() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] data = new byte[3 * MIB];
        new Random(18).nextBytes(data);
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            for (int i = 0; i < 8; i++) {
                created(api, "/api/v1/disks", "{\"name\":\"p" + i + "\",\"type\":\"file\",\"size\":\"4MiB\"}");
            }
            created(api, "/api/v1/disks", "{\"name\":\"pj\",\"type\":\"file\",\"size\":\"2MiB\"}");
            created(api, "/api/v1/arrays", "{\"name\":\"r5\",\"level\":\"raid5\",\"members\":[\"p0\",\"p1\",\"p2\",\"p3\"],"
                    + "\"chunk\":\"64KiB\",\"layout\":\"left-asymmetric\",\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}");
            created(api, "/api/v1/arrays", "{\"name\":\"r5j\",\"level\":\"raid5\",\"members\":[\"p4\",\"p5\",\"p6\",\"p7\"],"
                    + "\"chunk\":\"64KiB\",\"journal\":\"pj\",\"stripeCacheSize\":64,"
                    + "\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}");
            for (String a : new String[] {"r5", "r5j"}) {
                await().atMost(LONG).until(() -> Boolean.FALSE.equals(array(api, a).get("resyncPending")));
                assertThat(api.put("/api/v1/devices/" + a + "/data?offset=" + MIB, data).statusCode()).isEqualTo(204);
                assertThat(api.post("/api/v1/devices/" + a + "/flush").statusCode()).isEqualTo(204);
            }
            Map<String, Object> r5j = array(api, "r5j");
            assertThat(Json.at(r5j, "journal", "device")).isEqualTo("pj");
            assertThat(((Number) Json.at(r5j, "journal", "records")).longValue()).isPositive();
            assertThat(r5j.get("layout")).isEqualTo("left-symmetric");
            assertThat(array(api, "r5").get("layoutCode")).isEqualTo(0L);
            assertThat(api.get("/api/v1/devices/pj").body()).contains("\"holders\":[\"array r5j\"]");
            assertThat(dirty(dataDir, "r5")).isTrue();
        }
        assertThat(dirty(dataDir, "r5")).as("a clean stop is written down").isFalse();

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            assertThat(array(api, "r5").get("resyncPending")).as("clean: no resync").isEqualTo(false);
            assertThat(read(api, "r5", MIB, 3 * MIB)).isEqualTo(data);
        }

        crashed(dataDir);
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            Map<String, Object> r5 = array(api, "r5");
            assertThat(Json.at(r5, "state", "actual")).isEqualTo("active");
            assertThat(r5.get("lastSyncAction")).as("unclean: the parity is recomputed").isEqualTo("resync");
            assertThat(array(api, "r5j").get("resyncPending")).as("the journal replays instead").isEqualTo(false);
            await().atMost(LONG).until(() -> Boolean.FALSE.equals(array(api, "r5").get("resyncPending")));
            assertThat(read(api, "r5", MIB, 3 * MIB)).isEqualTo(data);
            assertThat(read(api, "r5j", MIB, 3 * MIB)).isEqualTo(data);
            assertThat(api.get("/api/v1/mdstat").body()).contains("level 5, 64k chunk, algorithm 0 [4/4] [UUUU]",
                    "level 5, 64k chunk, algorithm 2 [4/4] [UUUU]");
        }
    }
}
