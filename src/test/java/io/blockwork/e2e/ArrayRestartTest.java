package io.blockwork.e2e;

import static io.blockwork.e2e.ExportEndToEndTest.TOOL_TIMEOUT;
import static io.blockwork.e2e.ExportEndToEndTest.nbdPort;
import static org.assertj.core.api.Assertions.assertThat;
import static io.blockwork.e2e.ArrayCalls.array;
import static io.blockwork.e2e.ArrayCalls.created;
import static io.blockwork.e2e.ArrayCalls.member;
import static io.blockwork.e2e.ArrayCalls.members;
import static io.blockwork.e2e.ArrayCalls.read;
import static io.blockwork.e2e.ArrayCalls.settled;
import static org.awaitility.Awaitility.await;

import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.Json;
import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Arrays are stored and assembled again at start-up after their members: with their data when
 * the members keep theirs (file disks), degraded with the reason when a member is gone, and not
 * at all (failed, with the reason) when they cannot run without it. An array is exported over NBD
 * like any block device.
 */
@Tag("real-client")
class ArrayRestartTest {

    private static final Duration LONG = Duration.ofSeconds(60);
    private static final int MIB = 1 << 20;

    @Test
    @SuppressWarnings("unchecked")
    void arraysOfFileDisksComeBackWithTheirDataAndDegradedWhenAMemberIsGone() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] data = new byte[4 * MIB];
        new Random(11).nextBytes(data);

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            for (int i = 0; i < 6; i++) {
                created(api, "/api/v1/disks", "{\"name\":\"f" + i + "\",\"type\":\"file\",\"size\":\"8MiB\"}");
            }
            created(api, "/api/v1/arrays", "{\"name\":\"md\",\"level\":\"raid10\",\"members\":[\"f0\",\"f1\",\"f2\",\"f3\"],"
                    + "\"chunk\":\"64KiB\",\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}");
            created(api, "/api/v1/arrays", "{\"name\":\"r0\",\"level\":\"raid0\",\"members\":[\"f4\",\"f5\"],\"chunk\":\"64KiB\"}");
            assertThat(api.put("/api/v1/devices/md/data?offset=" + 2 * MIB, data).statusCode()).isEqualTo(204);
            assertThat(api.post("/api/v1/devices/md/flush").statusCode()).isEqualTo(204);
            await().atMost(LONG).until(() -> settled(api, "md"));
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            Map<String, Object> md = array(api, "md");
            assertThat(Json.at(md, "state", "actual")).isEqualTo("active");
            assertThat(md.get("arrayState")).isEqualTo(List.of("clean"));
            assertThat(members(md)).extracting(m -> m.get("device") + " " + m.get("slot") + " " + m.get("state"))
                    .containsExactly("f0 0 in_sync", "f1 1 in_sync", "f2 2 in_sync", "f3 3 in_sync");
            assertThat(read(api, "md", 2 * MIB, 4 * MIB)).isEqualTo(data);
            assertThat(api.get("/api/v1/system/assembly").body())
                    .contains("\"kind\":\"array\",\"name\":\"md\",\"dependsOn\":[\"disk f0\",\"disk f1\",\"disk f2\",\"disk f3\"]")
                    .doesNotContain("failed", "blocked");
            assertThat(api.get("/api/v1/devices/f2").body()).contains("\"holders\":[\"array md\"]");
        }

        Files.delete(dataDir.resolve("disks/f2.img"));
        Files.delete(dataDir.resolve("disks/f5.img"));
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            Map<String, Object> md = array(api, "md");
            assertThat(Json.at(md, "state", "actual")).isEqualTo("active");
            assertThat((List<Object>) md.get("arrayState")).contains("degraded");
            Map<String, Object> f2 = member(md, "f2");
            assertThat(f2.get("state")).isEqualTo("missing");
            assertThat((String) f2.get("faultReason")).contains("disk f2 is failed", "f2.img is missing");
            assertThat(read(api, "md", 2 * MIB, 4 * MIB)).isEqualTo(data);
            assertThat(api.get("/api/v1/mdstat").body()).contains("[4/3] [UU_U]");

            // raid0 cannot run without its member: not assembled, with the reason, members still held
            Map<String, Object> r0 = array(api, "r0");
            assertThat(Json.at(r0, "state", "actual")).isEqualTo("failed");
            assertThat((String) Json.at(r0, "state", "reason")).contains("f5", "disk f5 is failed");
            assertThat(api.get("/api/v1/devices/f4").body()).contains("\"holders\":[\"array r0\"]");

            // repair md: the missing member goes, a new disk is rebuilt into its slot
            assertThat(api.send("DELETE", "/api/v1/disks/f2")).isEqualTo(409);
            assertThat(api.send("DELETE", "/api/v1/arrays/md/members/f2")).isEqualTo(200);
            assertThat(api.send("DELETE", "/api/v1/disks/f2")).isEqualTo(204);
            created(api, "/api/v1/disks", "{\"name\":\"f6\",\"type\":\"file\",\"size\":\"8MiB\"}");
            created(api, "/api/v1/arrays/md/members", "{\"device\":\"f6\"}");
            await().atMost(LONG).until(() -> settled(api, "md") && array(api, "md").get("arrayState").equals(List.of("clean")));
            assertThat(member(array(api, "md"), "f6").get("slot")).isEqualTo(2L);
            // the raid0 is deleted; its surviving member is free
            assertThat(api.send("DELETE", "/api/v1/arrays/r0")).isEqualTo(204);
            assertThat(api.get("/api/v1/devices/f4").body()).contains("\"holders\":[]");
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            Map<String, Object> md = array(api, "md");
            assertThat(md.get("arrayState")).isEqualTo(List.of("clean"));
            assertThat(members(md)).extracting(m -> m.get("device") + " " + m.get("slot") + " " + m.get("state"))
                    .containsExactly("f0 0 in_sync", "f1 1 in_sync", "f6 2 in_sync", "f3 3 in_sync");
            // the rebuilt member holds its copies: with its partner failed, the data still reads back
            assertThat(api.post("/api/v1/arrays/md/members/f3/fail").statusCode()).isEqualTo(200);
            assertThat(read(api, "md", 2 * MIB, 4 * MIB)).isEqualTo(data);
            assertThat(api.get("/api/v1/arrays").body()).doesNotContain("\"r0\"");
        }
    }

    /**
     * A member failed before a restart comes back failed (mdstat and the array agree); a member
     * removed before a restart can be re-added into its old slot after it, as before it.
     */
    @Test
    void failedAndRemovedMembersAreRememberedAcrossARestart() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            for (String d : List.of("g0", "g1", "h0", "h1")) {
                created(api, "/api/v1/disks", "{\"name\":\"" + d + "\",\"type\":\"file\",\"size\":\"2MiB\"}");
            }
            created(api, "/api/v1/arrays", "{\"name\":\"ra\",\"level\":\"raid1\",\"members\":[\"g0\",\"g1\"],\"assumeClean\":true}");
            created(api, "/api/v1/arrays", "{\"name\":\"rb\",\"level\":\"raid1\",\"members\":[\"h0\",\"h1\"],\"assumeClean\":true}");
            assertThat(api.post("/api/v1/arrays/ra/members/g1/fail").statusCode()).isEqualTo(200);
            assertThat(api.post("/api/v1/arrays/rb/members/h1/fail").statusCode()).isEqualTo(200);
            assertThat(api.send("DELETE", "/api/v1/arrays/rb/members/h1")).isEqualTo(200);
            assertThat(api.get("/api/v1/mdstat").body()).contains("g1[1](F)").doesNotContain("h1[");
        }

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            assertThat(member(array(api, "ra"), "g1").get("state")).isEqualTo("faulty");
            assertThat(api.get("/api/v1/mdstat").body()).containsPattern("ra : active raid1 .*g1\\[\\d+]\\(F\\)");
            assertThat(api.get("/api/v1/devices/g1").body()).contains("\"holders\":[\"array ra\"]");
            // as in md: a failed member is removed before it is re-added, and goes back into its slot
            assertThat(api.post("/api/v1/arrays/ra/members/g1/re-add").statusCode()).isEqualTo(409);
            assertThat(api.send("DELETE", "/api/v1/arrays/ra/members/g1")).isEqualTo(200);
            assertThat(api.post("/api/v1/arrays/ra/members/g1/re-add").statusCode()).isEqualTo(200);
            var rb = api.post("/api/v1/arrays/rb/members/h1/re-add");
            assertThat(rb.statusCode()).as(rb.body()).isEqualTo(200);
            await().atMost(LONG).until(() -> settled(api, "ra") && settled(api, "rb"));
            assertThat(member(array(api, "ra"), "g1").get("slot")).isEqualTo(1L);
            assertThat(member(array(api, "rb"), "h1").get("slot")).isEqualTo(1L);
            assertThat(api.get("/api/v1/mdstat").body()).doesNotContain("(F)");
        }
    }

    @Test
    void anArrayIsExportedOverNbd() throws Exception {
        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            for (int i = 0; i < 4; i++) {
                created(api, "/api/v1/disks", "{\"name\":\"n" + i + "\",\"type\":\"memory\",\"size\":\"16MiB\"}");
            }
            created(api, "/api/v1/arrays", "{\"name\":\"nmd\",\"level\":\"raid10\",\"members\":[\"n0\",\"n1\",\"n2\",\"n3\"]}");
            created(api, "/api/v1/exports", "{\"device\":\"nmd\",\"description\":\"raid10 over four disks\"}");
            assertThat(api.get("/api/v1/exports/nmd").body()).contains("\"deviceKind\":\"array\"");

            String uri = "nbd://127.0.0.1:" + nbdPort(api) + "/nmd";
            Object info = Json.at(Json.parseObject(
                    ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", "--json", uri).requireSuccess().stdout()), "exports", 0);
            // md's v1.2 data offset (2 MiB on 16 MiB members) comes off each member
            assertThat(Json.number(info, "export-size")).isEqualTo(((Number) array(api, "nmd").get("sizeBytes")).doubleValue())
                    .isEqualTo(28.0 * MIB);
            assertThat(Json.at(info, "description")).isEqualTo("raid10 over four disks");
            assertThat(api.get("/api/v1/devices/nmd").body()).contains("\"holders\":[\"export nmd\"]");
        }
    }
}
