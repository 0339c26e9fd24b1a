package io.blockwork.array.web;

import static io.blockwork.array.web.ArrayRequests.addMember;
import static io.blockwork.array.web.ArrayRequests.array;
import static io.blockwork.array.web.ArrayRequests.at;
import static io.blockwork.array.web.ArrayRequests.createArray;
import static io.blockwork.array.web.ArrayRequests.failMember;
import static io.blockwork.array.web.ArrayRequests.reAdd;
import static io.blockwork.array.web.ArrayRequests.removeMember;
import static io.blockwork.array.web.ArrayRequests.rows;
import static io.blockwork.array.web.ArrayRequests.settled;
import static io.blockwork.array.web.ArrayRequests.speedLimits;
import static io.blockwork.array.web.ArrayRequests.sync;
import static io.blockwork.export.web.ExportRequests.createExport;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.viewer;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.matchesPattern;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;

/** The arrays API, one operation after another, with what each does to the data, the registry and the rows. */
@AppTest
class ArrayApiTest {

    private static final Duration LONG = Duration.ofSeconds(60);
    private static final int MIB = 1 << 20;

    @Autowired
    MockMvc mvc;
    @Autowired
    JdbcTemplate jdbc;

    private void disks(String prefix, int n, String size) throws Exception {
        for (int i = 0; i < n; i++) {
            mvc.perform(memoryDisk(prefix + i, size)).andExpect(status().isCreated());
        }
    }

    private static String members(String prefix, int n) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            s.append(i == 0 ? "" : ",").append('"').append(prefix).append(i).append('"');
        }
        return s.append(']').toString();
    }

    private void awaitSettled(String name) {
        await().atMost(LONG).until(() -> settled(mvc, name));
    }

    private static byte[] random(int seed, int bytes) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return b;
    }

    private void write(String device, long offset, byte[] data) throws Exception {
        mvc.perform(writeData(device, offset, data)).andExpect(status().isNoContent());
    }

    private void assertReads(String device, long offset, byte[] expected) throws Exception {
        byte[] back = mvc.perform(readData(device, offset, expected.length)).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsByteArray();
        assertThat(back).as("%s at %d", device, offset).isEqualTo(expected);
    }

    @Test
    void aRaid10IsABlockDeviceThatHoldsItsMembers() throws Exception {
        disks("aa-c", 4, "16MiB");
        mvc.perform(createArray("{\"name\":\"aa-md\",\"level\":\"raid10\",\"members\":" + members("aa-c", 4)
                        + ",\"chunk\":\"64KiB\",\"layout\":\"n2\",\"strategies\":{\"flush\":\"serial\",\"barrier\":\"locked\"},"
                        + "\"speedLimits\":{\"min\":\"1MiB\",\"max\":\"100MiB\"}}"))
                .andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/v1/arrays/aa-md"))
                .andExpect(jsonPath("$.name").value("aa-md"))
                .andExpect(jsonPath("$.level").value("raid10"))
                // md's v1.2 superblock (the default): the data starts 1 MiB in, as mdadm puts it on 16 MiB members
                .andExpect(jsonPath("$.sizeBytes").value(30 * MIB))
                .andExpect(jsonPath("$.usedDevSizeBytes").value(15 * MIB))
                .andExpect(jsonPath("$.metadata").value("1.2"))
                .andExpect(jsonPath("$.uuid").value(matchesPattern("[0-9a-f]{8}(:[0-9a-f]{8}){3}")))
                .andExpect(jsonPath("$.dataOffsetBytes").value(MIB))
                .andExpect(jsonPath("$.events").value(greaterThan(0)))
                .andExpect(jsonPath("$.bitmap.chunkBytes").value(65536))
                .andExpect(jsonPath("$.bitmap.chunks").value(480))
                .andExpect(jsonPath("$.bitmap.delaySeconds").value(5))
                .andExpect(jsonPath("$.chunkBytes").value(65536))
                .andExpect(jsonPath("$.layout").value("n2"))
                .andExpect(jsonPath("$.layoutCode").value(0x102))
                .andExpect(jsonPath("$.raidDevices").value(4))
                .andExpect(jsonPath("$.members[0].device").value("aa-c0"))
                .andExpect(jsonPath("$.members[0].slot").value(0))
                .andExpect(jsonPath("$.members[0].role").value("active"))
                .andExpect(jsonPath("$.members[0].state").value("in_sync"))
                .andExpect(jsonPath("$.members[0].stateText").value("active sync"))
                .andExpect(jsonPath("$.strategies.flush").value("serial"))
                .andExpect(jsonPath("$.strategies.barrier").value("locked"))
                .andExpect(jsonPath("$.speedLimits.min").value(MIB))
                .andExpect(jsonPath("$.speedLimits.max").value(100 * MIB))
                .andExpect(jsonPath("$.state.actual").value("active"));

        mvc.perform(get("/api/v1/devices/aa-md").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$.kind").value("array"))
                .andExpect(jsonPath("$.sizeBytes").value(30 * MIB));
        mvc.perform(get("/api/v1/devices/aa-c0").with(viewer()))
                .andExpect(jsonPath("$.holders", contains("array aa-md")));
        mvc.perform(get("/api/v1/arrays").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$[*].name", hasItem("aa-md")));
        assertThat(rows(jdbc, "aa-md")).containsExactly(Map.entry("aa-c0", "in_sync 0"),
                Map.entry("aa-c1", "in_sync 1"), Map.entry("aa-c2", "in_sync 2"), Map.entry("aa-c3", "in_sync 3"));

        // the initial resync runs, finishes, and the recorder writes that down
        awaitSettled("aa-md");
        mvc.perform(get("/api/v1/arrays/aa-md").with(viewer()))
                .andExpect(jsonPath("$.arrayState", contains("clean")))
                .andExpect(jsonPath("$.lastSyncAction").value("resync"))
                .andExpect(jsonPath("$.mismatchCount").value(0))
                .andExpect(jsonPath("$.sync.action").value("idle"));
        await().atMost(LONG).until(() -> !jdbc.queryForObject(
                "SELECT resync_pending FROM arrays WHERE name = 'aa-md'", Boolean.class));

        // viewers read, only admins change
        mvc.perform(org.springframework.test.web.servlet.request.MockMvcRequestBuilders
                .post("/api/v1/arrays/aa-md/members/aa-c0/fail").with(viewer())).andExpect(problem(403, "forbidden"));
        mvc.perform(get("/api/v1/mdstat").with(viewer())).andExpect(status().isOk());
    }

    @Test
    void dataWrittenToAnArraySurvivesAMemberFailedOverRest() throws Exception {
        disks("aw-c", 4, "16MiB");
        // new memory disks are all zeros: their copies agree, no resync needed
        mvc.perform(createArray("{\"name\":\"aw-md\",\"level\":\"raid10\",\"members\":" + members("aw-c", 4)
                        + ",\"assumeClean\":true}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.resyncPending").value(false))
                .andExpect(jsonPath("$.lastSyncAction").value("idle"));
        assertThat(jdbc.queryForObject("SELECT resync_pending FROM arrays WHERE name = 'aw-md'", Boolean.class)).isFalse();
        byte[] first = random(1, 4 * MIB);
        byte[] second = random(2, MIB);
        write("aw-md", 0, first);
        write("aw-md", 20L * MIB, second);

        mvc.perform(failMember("aw-md", "aw-c1")).andExpect(status().isOk())
                .andExpect(jsonPath("$.arrayState", hasItem("degraded")))
                .andExpect(jsonPath("$.failedDevices").value(1))
                .andExpect(jsonPath("$.members[?(@.device == 'aw-c1')].state", contains("faulty")))
                .andExpect(jsonPath("$.members[?(@.device == 'aw-c1')].faultReason", contains("failed by request")));
        assertReads("aw-md", 0, first);
        assertReads("aw-md", 20L * MIB, second);
        assertThat(rows(jdbc, "aw-md")).containsEntry("aw-c1", "faulty 1").containsEntry("aw-c0", "in_sync 0");
    }

    @Test
    void aSpareRebuildsTheSlotOfAFailedMember() throws Exception {
        disks("ac-c", 5, "16MiB");
        mvc.perform(createArray("{\"name\":\"ac-md\",\"level\":\"raid10\",\"members\":" + members("ac-c", 4)
                + ",\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}")).andExpect(status().isCreated());
        byte[] data = random(3, 8 * MIB);
        write("ac-md", 4L * MIB, data);
        awaitSettled("ac-md");

        mvc.perform(failMember("ac-md", "ac-c2")).andExpect(status().isOk());
        mvc.perform(addMember("ac-md", "{\"device\":\"ac-c4\"}")).andExpect(status().isOk())
                .andExpect(jsonPath("$.members[?(@.device == 'ac-c4')].state", contains(
                        org.hamcrest.Matchers.oneOf("spare", "rebuilding", "in_sync"))));
        mvc.perform(get("/api/v1/devices/ac-c4").with(admin())).andExpect(jsonPath("$.holders", contains("array ac-md")));
        awaitSettled("ac-md");

        Object a = array(mvc, "ac-md");
        assertThat(ArrayRequests.<List<Object>>at(a, "$.members[?(@.device == 'ac-c4')].slot")).containsExactly(2);
        assertThat(ArrayRequests.<List<Object>>at(a, "$.members[?(@.device == 'ac-c4')].state")).containsExactly("in_sync");
        // as md's array_state: active while writes are recent, clean once they have been idle a moment
        await().atMost(LONG).until(() -> ArrayRequests.<List<Object>>at(array(mvc, "ac-md"), "$.arrayState")
                .equals(List.of("clean")));
        assertThat((String) at(a, "$.lastSyncAction")).isEqualTo("recover");
        assertReads("ac-md", 4L * MIB, data);
        // the recovery's end is recorded by the background recorder
        await().atMost(LONG).until(() -> "in_sync 2".equals(rows(jdbc, "ac-md").get("ac-c4")));
        assertThat(rows(jdbc, "ac-md")).containsEntry("ac-c2", "faulty 2");

        // the failed member leaves and is free again
        mvc.perform(removeMember("ac-md", "ac-c2")).andExpect(status().isOk())
                .andExpect(jsonPath("$.members[?(@.device == 'ac-c2')]").isEmpty());
        mvc.perform(get("/api/v1/devices/ac-c2").with(admin())).andExpect(jsonPath("$.holders").isEmpty());
        assertThat(rows(jdbc, "ac-md")).doesNotContainKey("ac-c2");
    }

    @Test
    void aRemovedMemberIsReAddedIntoItsSlotAndRebuilt() throws Exception {
        disks("ar-c", 2, "8MiB");
        mvc.perform(createArray("{\"name\":\"ar-md\",\"level\":\"raid1\",\"members\":" + members("ar-c", 2)
                + ",\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}")).andExpect(status().isCreated());
        awaitSettled("ar-md");
        mvc.perform(failMember("ar-md", "ar-c1")).andExpect(status().isOk());
        mvc.perform(removeMember("ar-md", "ar-c1")).andExpect(status().isOk());
        byte[] data = random(4, 2 * MIB);
        write("ar-md", MIB, data);

        mvc.perform(reAdd("ar-md", "ar-c1")).andExpect(status().isOk())
                .andExpect(jsonPath("$.members[?(@.device == 'ar-c1')].slot", contains(1)));
        awaitSettled("ar-md");
        // its superblock placed it back in slot 1, and the bitmap limited the copy to what it missed
        assertThat(((Number) at(array(mvc, "ar-md"), "$.recoveredBytes")).longValue()).isEqualTo(2 * MIB);
        await().atMost(LONG).until(() -> "in_sync 1".equals(rows(jdbc, "ar-md").get("ar-c1")));
        // the rebuilt member has the data written while it was out: fail the other one and read
        mvc.perform(failMember("ar-md", "ar-c0")).andExpect(status().isOk());
        assertReads("ar-md", MIB, data);
    }

    @Test
    void aReplacementTakesOverItsMembersSlot() throws Exception {
        disks("ap-c", 3, "8MiB");
        mvc.perform(createArray("{\"name\":\"ap-md\",\"level\":\"raid1\",\"members\":" + members("ap-c", 2)
                + ",\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}")).andExpect(status().isCreated());
        byte[] data = random(5, 2 * MIB);
        write("ap-md", 0, data);
        awaitSettled("ap-md");

        mvc.perform(addMember("ap-md", "{\"device\":\"ap-c2\",\"role\":\"replacement\",\"replaces\":\"ap-c0\"}"))
                .andExpect(status().isOk());
        await().atMost(LONG).until(() -> settled(mvc, "ap-md")
                && ((List<?>) at(array(mvc, "ap-md"), "$.members[?(@.device == 'ap-c0' && @.state == 'faulty')]")).size() == 1);
        Object a = array(mvc, "ap-md");
        assertThat(ArrayRequests.<List<Object>>at(a, "$.members[?(@.device == 'ap-c2')].slot")).containsExactly(0);
        assertThat(ArrayRequests.<List<Object>>at(a, "$.members[?(@.device == 'ap-c0')].faultReason")).containsExactly("replaced by ap-c2");
        await().atMost(LONG).until(() -> rows(jdbc, "ap-md").equals(Map.of(
                "ap-c0", "faulty 0", "ap-c1", "in_sync 1", "ap-c2", "in_sync 0")));
        mvc.perform(failMember("ap-md", "ap-c1")).andExpect(status().isOk());
        assertReads("ap-md", 0, data);
    }

    @Test
    void checkPausesResumesAndEndsAndSpeedLimitsAreStored() throws Exception {
        disks("as-c", 2, "8MiB");
        mvc.perform(createArray("{\"name\":\"as-md\",\"level\":\"raid1\",\"members\":" + members("as-c", 2) + "}"))
                .andExpect(status().isCreated());
        awaitSettled("as-md");

        // slow enough that the check is still running when the test looks at it
        // (one 1 MiB window takes 2 s at this speed; pause, resume and idle act between windows)
        mvc.perform(speedLimits("as-md", "{\"min\":\"512KiB\",\"max\":\"512KiB\"}")).andExpect(status().isOk())
                .andExpect(jsonPath("$.speedLimits.min").value(512 * 1024))
                .andExpect(jsonPath("$.speedLimits.max").value(512 * 1024));
        // quoted labels: H2 upper-cases unquoted ones, PostgreSQL lower-cases them
        assertThat(jdbc.queryForList("SELECT speed_min_kibps AS \"min\", speed_max_kibps AS \"max\" FROM arrays"
                + " WHERE name = 'as-md'")).containsExactly(Map.of("min", 512L, "max", 512L));

        mvc.perform(sync("as-md", "check")).andExpect(status().isOk())
                .andExpect(jsonPath("$.sync.action").value("check"));
        mvc.perform(sync("as-md", "check")).andExpect(problem(409, "conflict"))
                .andExpect(jsonPath("$.field").value("action"));
        mvc.perform(sync("as-md", "pause")).andExpect(status().isOk())
                .andExpect(jsonPath("$.sync.paused").value(true));
        mvc.perform(get("/api/v1/mdstat").with(viewer())).andExpect(content("check =", "paused"));
        mvc.perform(sync("as-md", "resume")).andExpect(status().isOk())
                .andExpect(jsonPath("$.sync.paused").value(false));
        mvc.perform(sync("as-md", "idle")).andExpect(status().isOk());
        await().atMost(LONG).until(() -> at(array(mvc, "as-md"), "$.sync.action").equals("idle"));
        mvc.perform(get("/api/v1/arrays/as-md").with(viewer()))
                .andExpect(jsonPath("$.lastSyncAction").value("check"))
                .andExpect(jsonPath("$.mismatchCount").value(0));

        // a full check at full speed finds the mirrors equal
        mvc.perform(speedLimits("as-md", "{\"min\":\"100MiB\",\"max\":\"1GiB\"}")).andExpect(status().isOk());
        mvc.perform(sync("as-md", "repair")).andExpect(status().isOk());
        await().atMost(LONG).until(() -> at(array(mvc, "as-md"), "$.sync.action").equals("idle"));
        mvc.perform(get("/api/v1/arrays/as-md").with(viewer()))
                .andExpect(jsonPath("$.lastSyncAction").value("repair"))
                .andExpect(jsonPath("$.mismatchCount").value(0));
    }

    private static org.springframework.test.web.servlet.ResultMatcher content(String... parts) {
        return result -> {
            String text = result.getResponse().getContentAsString();
            for (String p : parts) {
                assertThat(text).contains(p);
            }
        };
    }

    @Test
    void deletingIsRefusedWhileExportedUnlessForcedAndFreesTheMembers() throws Exception {
        disks("ad-c", 2, "4MiB");
        mvc.perform(createArray("{\"name\":\"ad-md\",\"level\":\"raid1\",\"members\":" + members("ad-c", 2) + "}"))
                .andExpect(status().isCreated());
        mvc.perform(createExport("{\"device\":\"ad-md\"}")).andExpect(status().isCreated());

        mvc.perform(delete("/api/v1/arrays/ad-md").with(admin())).andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders", contains("export ad-md")));
        mvc.perform(get("/api/v1/arrays/ad-md").with(admin())).andExpect(status().isOk());

        mvc.perform(delete("/api/v1/arrays/ad-md").param("force", "true").with(admin()))
                .andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/arrays/ad-md").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/exports/ad-md").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/ad-c0").with(admin())).andExpect(jsonPath("$.holders").isEmpty());
        assertThat(rows(jdbc, "ad-md")).isEmpty();
        mvc.perform(get("/api/v1/mdstat").with(admin())).andExpect(status().isOk())
                .andExpect(jsonPathFree("ad-md"));
        // the members are free: a new array may use them
        mvc.perform(createArray("{\"name\":\"ad-md2\",\"level\":\"raid0\",\"members\":" + members("ad-c", 2) + ",\"chunk\":\"64KiB\"}"))
                .andExpect(status().isCreated());
        mvc.perform(delete("/api/v1/arrays/ad-md2").with(admin())).andExpect(status().isNoContent());
    }

    private static org.springframework.test.web.servlet.ResultMatcher jsonPathFree(String name) {
        return result -> assertThat(result.getResponse().getContentAsString()).doesNotContain(name + " :");
    }

    @Test
    void linearAndRaid0HaveNoRedundancy() throws Exception {
        mvc.perform(memoryDisk("al-c0", "1MiB")).andExpect(status().isCreated());
        mvc.perform(memoryDisk("al-c1", "2MiB")).andExpect(status().isCreated());
        disks("az-c", 2, "1MiB");
        // members this small leave no room for md's superblock and data offset: no metadata
        mvc.perform(createArray("{\"name\":\"al-md\",\"level\":\"linear\",\"members\":[\"al-c0\",\"al-c1\"],\"metadata\":\"none\"}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.sizeBytes").value(3 * MIB))
                .andExpect(jsonPath("$.sync").doesNotExist());
        mvc.perform(createArray("{\"name\":\"az-md\",\"level\":\"raid0\",\"members\":" + members("az-c", 2)
                        + ",\"chunk\":65536,\"metadata\":\"none\"}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.sizeBytes").value(2 * MIB))
                .andExpect(jsonPath("$.chunkBytes").value(65536));
        byte[] data = random(6, 3 * MIB);
        write("al-md", 0, data);
        assertReads("al-md", 0, data);
        // the linear array's second member holds its last 2 MiB
        assertReads("al-c1", 0, java.util.Arrays.copyOfRange(data, MIB, 3 * MIB));

        mvc.perform(failMember("az-md", "az-c0")).andExpect(problem(409, "conflict"))
                .andExpect(jsonPath("$.field").value("member"))
                .andExpect(jsonPath("$.detail").value(containsString("no redundancy")));
        mvc.perform(sync("az-md", "check")).andExpect(problem(409, "conflict"))
                .andExpect(jsonPath("$.field").value("action"));
        mvc.perform(speedLimits("al-md", "{\"min\":\"1MiB\"}")).andExpect(problem(409, "not-supported"));
    }

    @Test
    void raid10LayoutsByNameOrByMdsNumber() throws Exception {
        disks("ay-c", 4, "4MiB");
        mvc.perform(createArray("{\"name\":\"ay-f2\",\"level\":\"raid10\",\"layout\":513,\"members\":[\"ay-c0\",\"ay-c1\"]}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.layout").value("f2"))
                .andExpect(jsonPath("$.layoutCode").value(0x201));
        mvc.perform(createArray("{\"name\":\"ay-o2\",\"level\":\"10\",\"layout\":\"0x10201\",\"members\":[\"ay-c2\",\"ay-c3\"]}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.level").value("raid10"))
                .andExpect(jsonPath("$.layout").value("o2"));
    }
}
