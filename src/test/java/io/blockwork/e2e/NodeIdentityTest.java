package io.blockwork.e2e;

import static io.blockwork.e2e.ArrayCalls.created;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.nbd.Json;
import io.blockwork.support.PostgresCluster;
import io.blockwork.support.TempDataDir;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 21, acceptance 2: two Blockwork processes on one machine (own ports, node names and data
 * dirs) share one PostgreSQL database. Each lists the other's objects read-only, marked with their
 * node; a change to the other's object is 409 other-node naming the node; a third process with a
 * node name already running is refused at start-up; a restarted node assembles only its own objects.
 * Always on PostgreSQL (a database of its own on the test JVM's cluster), whatever the run's database.
 */
@Tag("api")
class NodeIdentityTest {

    @Test
    void twoNodesShareOneDatabaseAndEachChangesOnlyItsOwn() throws Exception {
        String url = PostgresCluster.shared().database("nodes_" + Long.toHexString(System.nanoTime()));
        Map<String, Object> database = Map.of("spring.datasource.url", url,
                "spring.datasource.username", PostgresCluster.USER, "spring.datasource.password", "");
        try (NodeProcess a = NodeProcess.start(TempDataDir.newDataDir(), node(database, "node-a"));
             NodeProcess b = NodeProcess.start(TempDataDir.newDataDir(), node(database, "node-b"))) {
            ServiceClient apiA = a.client();
            ServiceClient apiB = b.client();
            created(apiA, "/api/v1/disks", "{\"name\":\"a-d1\",\"type\":\"memory\",\"size\":\"1MiB\"}");
            created(apiB, "/api/v1/disks", "{\"name\":\"b-d1\",\"type\":\"memory\",\"size\":\"1MiB\"}");
            created(apiB, "/api/v1/pools", "{\"name\":\"b-pool\",\"device\":\"b-d1\",\"extentSize\":\"64KiB\"}");
            // a thin pool with a thin volume and a thin snapshot belongs to one node as a classic pool does
            created(apiB, "/api/v1/disks", "{\"name\":\"b-d2\",\"type\":\"memory\",\"size\":\"16MiB\"}");
            created(apiB, "/api/v1/pools", "{\"name\":\"b-vg\",\"device\":\"b-d2\",\"extentSize\":\"1MiB\"}");
            created(apiB, "/api/v1/pools", "{\"name\":\"b-thin\",\"type\":\"thin\",\"from\":\"b-vg\",\"size\":\"8MiB\"}");
            created(apiB, "/api/v1/pools/b-thin/volumes", "{\"name\":\"b-tv\",\"size\":\"1GiB\"}");
            created(apiB, "/api/v1/pools/b-thin/volumes/b-tv/snapshots", "{\"name\":\"b-ts\"}");

            Map<String, Object> seenByA = byName(apiA.get("/api/v1/disks").body()).get("b-d1");
            assertThat(seenByA).containsEntry("node", "node-b");
            assertThat(Json.at(seenByA, "state", "actual")).isEqualTo("other-node");
            assertThat(seenByA).doesNotContainKey("stats");
            assertThat(byName(apiB.get("/api/v1/disks").body()).get("a-d1")).containsEntry("node", "node-a");
            assertThat(Json.at(Json.parseObject(apiA.get("/api/v1/disks/a-d1").body()), "state", "actual"))
                    .isEqualTo("active");
            assertThat(apiA.get("/api/v1/system").body()).contains("\"node\":\"node-a\"");
            assertThat(apiA.get("/api/v1/system/nodes").body()).contains("\"name\":\"node-a\"", "\"name\":\"node-b\"");

            var patch = apiA.send("PATCH", "/api/v1/disks/b-d1", "application/json", "{\"queueDepth\":4}");
            assertThat(patch.statusCode()).isEqualTo(409);
            assertThat(patch.body()).contains("\"code\":\"other-node\"", "\"node\":\"node-b\"", "node node-b");
            assertThat(apiA.send("DELETE", "/api/v1/disks/b-d1")).isEqualTo(409);
            assertThat(apiA.send("DELETE", "/api/v1/pools/b-pool")).isEqualTo(409);
            var volume = apiA.postJson("/api/v1/pools/b-pool/volumes", "{\"name\":\"a-vol\",\"size\":\"64KiB\"}");
            assertThat(volume.statusCode()).isEqualTo(409);
            assertThat(volume.body()).contains("\"node\":\"node-b\"");
            thinPoolIsReadOnlyOnTheOtherNode(apiA);
            // nothing changed on node-b's side
            assertThat(apiB.get("/api/v1/disks/b-d1").body()).contains("\"queueDepth\":0", "\"actual\":\"active\"");
            assertThat(apiB.get("/api/v1/pools/b-thin").body()).contains("\"actual\":\"active\"");
            assertThat(apiB.get("/api/v1/pools/b-thin/volumes/b-tv").body()).contains("\"sizeBytes\":1073741824",
                    "\"actual\":\"active\"");
            assertThat(apiB.get("/api/v1/pools/b-thin/volumes/b-tv/snapshots").body()).contains("\"name\":\"b-ts\"")
                    .doesNotContain("a-ts");

            NodeProcess twin = NodeProcess.launch(TempDataDir.newDataDir(), node(database, "node-a"));
            assertThat(twin.awaitExit(Duration.ofMinutes(3))).isNotZero();
            assertThat(twin.log()).contains("refusing to start", "node name 'node-a' is in use");
            twin.close();

            a.close();
            try (NodeProcess again = NodeProcess.start(TempDataDir.newDataDir(), node(database, "node-a"))) {
                String assembly = again.client().get("/api/v1/system/assembly").body();
                assertThat(assembly).contains("\"name\":\"a-d1\"").doesNotContain("b-d1", "b-pool", "b-thin", "b-tv", "b-ts");
                assertThat(again.client().get("/api/v1/disks/a-d1").body()).contains("\"actual\":\"active\"");
            }
        }
    }

    /** Node-b's thin pool, its thin volume and its thin snapshot, as node-a sees and (fails to) change them. */
    private static void thinPoolIsReadOnlyOnTheOtherNode(ServiceClient apiA) throws Exception {
        Map<String, Object> pool = byName(apiA.get("/api/v1/pools").body()).get("b-thin");
        assertThat(pool).containsEntry("node", "node-b").containsEntry("type", "thin");
        assertThat(Json.at(pool, "state", "actual")).isEqualTo("other-node");
        Map<String, Object> volume = byName(apiA.get("/api/v1/pools/b-thin/volumes").body()).get("b-tv");
        assertThat(volume).containsEntry("node", "node-b");
        assertThat(Json.at(volume, "state", "actual")).isEqualTo("other-node");
        assertThat(apiA.get("/api/v1/pools/b-thin/volumes/b-tv/snapshots").body())
                .contains("\"name\":\"b-ts\"", "\"node\":\"node-b\"", "\"state\":\"other-node\"");

        var changes = List.of(
                apiA.postJson("/api/v1/pools/b-thin/volumes", "{\"name\":\"a-tv\",\"size\":\"1MiB\"}"),
                apiA.postJson("/api/v1/pools/b-thin/volumes/b-tv/snapshots", "{\"name\":\"a-ts\"}"),
                apiA.send("PATCH", "/api/v1/pools/b-thin/volumes/b-tv", "application/json", "{\"size\":\"2GiB\"}"),
                apiA.send("PATCH", "/api/v1/pools/b-thin", "application/json", "{\"size\":\"9MiB\"}"),
                apiA.postJson("/api/v1/pools", "{\"name\":\"a-thin\",\"type\":\"thin\",\"from\":\"b-vg\",\"size\":\"1MiB\"}"));
        for (var r : changes) {
            assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
            assertThat(r.body()).contains("\"code\":\"other-node\"", "\"node\":\"node-b\"");
        }
        assertThat(apiA.send("DELETE", "/api/v1/pools/b-thin/volumes/b-tv/snapshots/b-ts")).isEqualTo(409);
        assertThat(apiA.send("DELETE", "/api/v1/pools/b-thin/volumes/b-tv?force=true")).isEqualTo(409);
        assertThat(apiA.send("DELETE", "/api/v1/pools/b-thin")).isEqualTo(409);
    }

    private static Map<String, Object> node(Map<String, Object> database, String name) {
        Map<String, Object> p = new java.util.HashMap<>(database);
        p.put("blockwork.node-name", name);
        return p;
    }

    private static Map<String, Map<String, Object>> byName(String listJson) {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> list = (List<Map<String, Object>>) Json.parse(listJson);
        Map<String, Map<String, Object>> out = new java.util.HashMap<>();
        list.forEach(m -> out.put((String) m.get("name"), m));
        return out;
    }
}
