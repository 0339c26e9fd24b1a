package io.blockwork.e2e;

import org.junit.jupiter.api.Tag;
import static io.blockwork.e2e.ArrayCalls.array;
import static io.blockwork.e2e.ArrayCalls.created;
import static io.blockwork.e2e.ArrayCalls.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.blockwork.nbd.Json;
import io.blockwork.support.TempDataDir;
import io.blockwork.support.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * raid5 across restarts. Without superblocks: a clean stop is written down and the next start
 * trusts the parity; a stop that was not clean (the row still says "dirty", as a kill -9 leaves
 * it) makes the array resync when it starts, unless it has a write journal, whose replay makes
 * every stripe whole. With superblocks and a bitmap (the default): after a kill -9 only the rows
 * of the bitmap's dirty chunks are resynced.
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
            // without superblocks the row's dirty flag is what says the stop was not clean
            created(api, "/api/v1/arrays", "{\"name\":\"r5\",\"level\":\"raid5\",\"members\":[\"p0\",\"p1\",\"p2\",\"p3\"],"
                    + "\"metadata\":\"none\",\"chunk\":\"64KiB\",\"layout\":\"left-asymmetric\",\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}");
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

    /** A page of a member image, overwritten while the service is down: a parity write that never happened. */
    private static void tear(Path image, long at) throws Exception {
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(image.toFile(), "rw")) {
            byte[] junk = new byte[4096];
            new Random(at).nextBytes(junk);
            f.seek(at);
            f.write(junk);
        }
    }

    /**
     * The raid5 write hole closed through the bitmap, end to end: the service is killed -9 while a
     * row is dirty; at the restart the superblocks say the array was active and the resync
     * recomputes parity only in that row (its torn parity page is found and fixed), while a
     * difference planted in a row nobody wrote is left for a check to find.
     */
    @Test
    void afterAKillOnlyTheBitmapsDirtyRowsAreResynced() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] data = new byte[3 * MIB];
        new Random(181).nextBytes(data);
        byte[] last = new byte[4096];
        new Random(182).nextBytes(last);
        long row = 192 * 1024;
        long dataOffset;
        try (RunningService running = RunningService.startProcess(dataDir)) {
            ServiceClient api = running.client();
            for (int i = 0; i < 4; i++) {
                created(api, "/api/v1/disks", "{\"name\":\"b" + i + "\",\"type\":\"file\",\"size\":\"8MiB\"}");
            }
            created(api, "/api/v1/arrays", "{\"name\":\"r5b\",\"level\":\"raid5\",\"members\":[\"b0\",\"b1\",\"b2\",\"b3\"],"
                    + "\"chunk\":\"64KiB\",\"bitmapChunk\":\"64KiB\",\"bitmapDelay\":2,\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}");
            await().atMost(LONG).until(() -> Boolean.FALSE.equals(array(api, "r5b").get("resyncPending")));
            assertThat(api.put("/api/v1/devices/r5b/data?offset=0", data).statusCode()).isEqualTo(204);
            // two bitmap daemon passes (2 s each: mdadm's --delay) clear the bits of the settled data;
            // a new write's bit then stays set for at least one whole pass, longer than the look below
            await().atMost(LONG).until(() -> ((Number) Json.at(array(api, "r5b"), "bitmap", "dirtyChunks")).intValue() == 0);
            assertThat(api.put("/api/v1/devices/r5b/data?offset=" + 5 * row, last).statusCode()).isEqualTo(204);
            Map<String, Object> r5b = array(api, "r5b");
            assertThat(((Number) Json.at(r5b, "bitmap", "dirtyChunks")).intValue()).isEqualTo(1);
            dataOffset = ((Number) r5b.get("dataOffsetBytes")).longValue();
            // md records an array clean 200 ms after its last write (safe mode), and a clean array
            // is not resynced: writers rewrite the same page up to the kill, so that it finds the
            // array active with that row's bit set, as a crash in the middle of a write does
            AtomicBoolean killed = new AtomicBoolean();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                writers.add(Thread.ofPlatform().start(() -> {
                    while (!killed.get()) {
                        try {
                            api.put("/api/v1/devices/r5b/data?offset=" + 5 * row, last);
                        } catch (Exception e) {
                            return; // the kill
                        }
                    }
                }));
            }
            await().atMost(LONG).until(() -> "active".equals(Json.at(
                    Json.parseObject(api.get("/api/v1/devices/b0/examine").body()), "superblock", "state")));
            running.kill();
            killed.set(true);
            for (Thread w : writers) {
                w.join();
            }
        }
        // left-symmetric on 4 members: row r's parity is on member 3 - r % 4
        Path images = dataDir.resolve("disks");
        tear(images.resolve("b2.img"), dataOffset + 5 * 64 * 1024 + 4096);
        tear(images.resolve("b3.img"), dataOffset + 40 * 64 * 1024);

        try (RunningService running = RunningService.startProcess(dataDir)) {
            ServiceClient api = running.client();
            await().atMost(LONG).until(() -> Boolean.FALSE.equals(array(api, "r5b").get("resyncPending"))
                    && "idle".equals(Json.at(array(api, "r5b"), "sync", "action")));
            Map<String, Object> r5b = array(api, "r5b");
            assertThat(r5b.get("lastSyncAction")).isEqualTo("resync");
            assertThat(r5b.get("mismatchCount")).as("the dirty row's torn parity page, and nothing else").isEqualTo(8L);
            assertThat(read(api, "r5b", 0, data.length)).isEqualTo(concat(data, last, (int) (5 * row)));
            assertThat(api.postJson("/api/v1/arrays/r5b/sync", "{\"action\":\"check\"}").statusCode()).isEqualTo(200);
            await().atMost(LONG).until(() -> "check".equals(array(api, "r5b").get("lastSyncAction"))
                    && "idle".equals(Json.at(array(api, "r5b"), "sync", "action")));
            assertThat(array(api, "r5b").get("mismatchCount")).as("row 40 was never resynced").isEqualTo(8L);
        }
    }

    private static byte[] concat(byte[] data, byte[] over, int at) {
        byte[] out = data.clone();
        System.arraycopy(over, 0, out, at, over.length);
        return out;
    }
}
