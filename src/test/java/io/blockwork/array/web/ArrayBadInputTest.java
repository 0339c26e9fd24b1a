package io.blockwork.array.web;

import static io.blockwork.array.web.ArrayRequests.addMember;
import static io.blockwork.array.web.ArrayRequests.createArray;
import static io.blockwork.array.web.ArrayRequests.failMember;
import static io.blockwork.array.web.ArrayRequests.removeMember;
import static io.blockwork.array.web.ArrayRequests.settled;
import static io.blockwork.array.web.ArrayRequests.speedLimits;
import static io.blockwork.array.web.ArrayRequests.sync;
import static io.blockwork.export.web.ExportRequests.createExport;
import static io.blockwork.support.Listings.named;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.viewer;
import static io.blockwork.support.Requests.memoryDisk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.engine.md.MdArrays;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.support.AppTest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Each kind of bad array request gets its status, problem code and field, and changes nothing:
 * the arrays and devices as the API shows them (holders included), the engine's array table and
 * the stored rows are compared before and after.
 */
@AppTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ArrayBadInputTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    DeviceRegistry registry;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    MdArrays engine;

    private String before;

    /** Free disks ab-c0..c3, an array ab-held over ab-h0/ab-h1, an exported disk ab-e0, a disk that is down. */
    @BeforeAll
    void devices() throws Exception {
        for (String d : new String[] {"ab-c0", "ab-c1", "ab-c2", "ab-c3", "ab-h0", "ab-h1", "ab-e0"}) {
            mvc.perform(memoryDisk(d, "4MiB")).andExpect(status().isCreated());
        }
        // no bitmap: its daemon would change the array's look (dirty chunks) between before and after
        mvc.perform(createArray("{\"name\":\"ab-held\",\"level\":\"raid1\",\"members\":[\"ab-h0\",\"ab-h1\"],\"bitmap\":\"none\"}"))
                .andExpect(status().isCreated());
        mvc.perform(createExport("{\"device\":\"ab-e0\"}")).andExpect(status().isCreated());
        registry.reserve("ab-down", DeviceKind.DISK, ObjectState.failed("its image file is missing"));
        await().atMost(Duration.ofSeconds(60)).until(() -> settled(mvc, "ab-held"));
    }

    @AfterAll
    void dropTheReservation() {
        registry.unregister("ab-down");
    }

    @BeforeEach
    void rememberState() throws Exception {
        before = everything();
    }

    private String everything() throws Exception {
        return named(mvc, "/api/v1/arrays", "ab-") + named(mvc, "/api/v1/devices", "ab-")
                + engine.list().stream().filter(a -> a.name().startsWith("ab-"))
                        .map(a -> a.name() + " " + a.detail().members()).toList()
                + jdbc.queryForList("SELECT * FROM arrays WHERE name LIKE 'ab-%' ORDER BY id")
                + jdbc.queryForList("SELECT m.* FROM array_members m JOIN arrays a ON m.array_id = a.id"
                        + " WHERE a.name LIKE 'ab-%' ORDER BY m.id");
    }

    private void assertNothingChanged() throws Exception {
        assertThat(everything()).isEqualTo(before);
    }

    /** Nothing changed but the read counters: examining a device reads its superblock. */
    private void assertNothingChangedButReads() throws Exception {
        String reads = "\"(reads|readBytes)\":\\d+";
        assertThat(everything().replaceAll(reads, "")).isEqualTo(before.replaceAll(reads, ""));
    }

    private void create(String json, int status, String code, String field) throws Exception {
        mvc.perform(createArray(json)).andExpect(problem(status, code)).andExpect(jsonPath("$.field").value(field));
        assertNothingChanged();
    }

    @Test
    void unknownMember() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid1\",\"members\":[\"ab-c0\",\"ab-nobody\"]}",
                400, "validation-failed", "members[1]");
    }

    @Test
    void memberOfAnotherArray() throws Exception {
        mvc.perform(createArray("{\"name\":\"ab-new\",\"level\":\"raid1\",\"members\":[\"ab-c0\",\"ab-h1\"]}"))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.field").value("members[1]"))
                .andExpect(jsonPath("$.holders", contains("array ab-held")));
        assertNothingChanged();
    }

    @Test
    void memberHeldByAnExport() throws Exception {
        mvc.perform(createArray("{\"name\":\"ab-new\",\"level\":\"raid1\",\"members\":[\"ab-e0\",\"ab-c0\"]}"))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.field").value("members[0]"))
                .andExpect(jsonPath("$.holders", contains("export ab-e0")));
        assertNothingChanged();
    }

    @Test
    void spareHeldByAnotherArray() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid1\",\"members\":[\"ab-c0\",\"ab-c1\"],\"spares\":[\"ab-h0\"]}",
                409, "device-busy", "spares[0]");
    }

    @Test
    void memberThatIsNotActive() throws Exception {
        mvc.perform(createArray("{\"name\":\"ab-new\",\"level\":\"raid1\",\"members\":[\"ab-c0\",\"ab-down\"]}"))
                .andExpect(problem(409, "conflict"))
                .andExpect(jsonPath("$.field").value("members[1]"))
                .andExpect(jsonPath("$.detail").value(containsString("image file is missing")));
        assertNothingChanged();
    }

    @Test
    void memberListedTwice() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid1\",\"members\":[\"ab-c0\",\"ab-c0\"]}",
                400, "validation-failed", "members[1]");
    }

    @Test
    void tooFewMembersForTheLevel() throws Exception {
        mvc.perform(createArray("{\"name\":\"ab-new\",\"level\":\"raid1\",\"members\":[\"ab-c0\"]}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("members"))
                .andExpect(jsonPath("$.detail").value(containsString("at least 2")));
        assertNothingChanged();
    }

    @Test
    void tooFewMembersForTheLayout() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid10\",\"layout\":\"n3\",\"members\":[\"ab-c0\",\"ab-c1\"]}",
                400, "validation-failed", "members");
    }

    @Test
    void chunkThatIsNotAPowerOfTwo() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid0\",\"chunk\":\"12KiB\",\"members\":[\"ab-c0\",\"ab-c1\"]}",
                400, "validation-failed", "chunk");
    }

    @Test
    void chunkThatIsNotASize() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid0\",\"chunk\":\"lots\",\"members\":[\"ab-c0\",\"ab-c1\"]}",
                400, "validation-failed", "chunk");
    }

    @Test
    void chunkOnRaid1() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid1\",\"chunk\":\"64KiB\",\"members\":[\"ab-c0\",\"ab-c1\"]}",
                400, "validation-failed", "chunk");
    }

    @Test
    void unknownLayout() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid10\",\"layout\":\"x9\",\"members\":[\"ab-c0\",\"ab-c1\"]}",
                400, "validation-failed", "layout");
    }

    @Test
    void layoutWithFarSets() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid10\",\"layout\":\"0x20102\",\"members\":[\"ab-c0\",\"ab-c1\"]}",
                400, "validation-failed", "layout");
    }

    @Test
    void layoutOnRaid0() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid0\",\"layout\":\"n2\",\"members\":[\"ab-c0\",\"ab-c1\"]}",
                400, "validation-failed", "layout");
    }

    @Test
    void unknownLevel() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid7\",\"members\":[\"ab-c0\",\"ab-c1\",\"ab-c2\"]}",
                400, "validation-failed", "level");
    }

    @Test
    void unknownStrategy() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid10\",\"members\":[\"ab-c0\",\"ab-c1\"],"
                + "\"strategies\":{\"flush\":\"sometimes\"}}", 400, "validation-failed", "strategies.flush");
    }

    @Test
    void speedLimitsOutOfOrder() throws Exception {
        create("{\"name\":\"ab-new\",\"level\":\"raid1\",\"members\":[\"ab-c0\",\"ab-c1\"],"
                + "\"speedLimits\":{\"min\":\"10MiB\",\"max\":\"1MiB\"}}", 400, "validation-failed", "speedLimits.max");
    }

    @Test
    void nameTaken() throws Exception {
        mvc.perform(createArray("{\"name\":\"ab-c3\",\"level\":\"raid1\",\"members\":[\"ab-c0\",\"ab-c1\"]}"))
                .andExpect(problem(409, "name-taken"))
                .andExpect(jsonPath("$.field").value("name"))
                .andExpect(jsonPath("$.takenBy").value("disk"));
        assertNothingChanged();
    }

    @Test
    void badName() throws Exception {
        mvc.perform(createArray("{\"name\":\"Bad Name\",\"level\":\"raid1\",\"members\":[\"ab-c0\",\"ab-c1\"]}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.errors[0].field").value("name"));
        assertNothingChanged();
    }

    @Test
    void membersMissing() throws Exception {
        mvc.perform(createArray("{\"name\":\"ab-new\",\"level\":\"raid1\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.errors[0].field").value("members"));
        assertNothingChanged();
    }

    @Test
    void removingAnInSyncMember() throws Exception {
        mvc.perform(removeMember("ab-held", "ab-h0"))
                .andExpect(problem(409, "conflict"))
                .andExpect(jsonPath("$.field").value("member"))
                .andExpect(jsonPath("$.detail").value(containsString("fail it first")));
        assertNothingChanged();
    }

    @Test
    void failingTheLastInSyncCopy() throws Exception {
        // fail one mirror, then the other is the last copy; the first failure is undone by a fresh array
        mvc.perform(createArray("{\"name\":\"ab-last\",\"level\":\"raid1\",\"members\":[\"ab-c2\",\"ab-c3\"]}"))
                .andExpect(status().isCreated());
        await().atMost(Duration.ofSeconds(60)).until(() -> settled(mvc, "ab-last"));
        mvc.perform(failMember("ab-last", "ab-c2")).andExpect(status().isOk());
        before = everything();
        mvc.perform(failMember("ab-last", "ab-c3"))
                .andExpect(problem(409, "conflict"))
                .andExpect(jsonPath("$.field").value("member"))
                .andExpect(jsonPath("$.detail").value(containsString("last in-sync copy")));
        assertNothingChanged();
        mvc.perform(delete("/api/v1/arrays/ab-last").with(admin())).andExpect(status().isNoContent());
    }

    @Test
    void addingABusyDevice() throws Exception {
        mvc.perform(addMember("ab-held", "{\"device\":\"ab-e0\"}"))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.field").value("device"));
        assertNothingChanged();
    }

    @Test
    void addingAnUnknownDevice() throws Exception {
        mvc.perform(addMember("ab-held", "{\"device\":\"ab-nobody\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("device"));
        assertNothingChanged();
    }

    @Test
    void addingATooSmallDevice() throws Exception {
        mvc.perform(memoryDisk("ab-small", "1MiB")).andExpect(status().isCreated());
        before = everything();
        mvc.perform(addMember("ab-held", "{\"device\":\"ab-small\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("device"));
        assertNothingChanged();
    }

    @Test
    void replacementWithoutTheMemberItReplaces() throws Exception {
        mvc.perform(addMember("ab-held", "{\"device\":\"ab-c0\",\"role\":\"replacement\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("replaces"));
        assertNothingChanged();
    }

    @Test
    void replacementOfAnUnknownMember() throws Exception {
        mvc.perform(addMember("ab-held", "{\"device\":\"ab-c0\",\"role\":\"replacement\",\"replaces\":\"ab-c1\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("replaces"));
        assertNothingChanged();
    }

    @Test
    void unknownRole() throws Exception {
        mvc.perform(addMember("ab-held", "{\"device\":\"ab-c0\",\"role\":\"boss\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("role"));
        assertNothingChanged();
    }

    @Test
    void unknownSyncAction() throws Exception {
        mvc.perform(sync("ab-held", "defrag"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("action"));
        assertNothingChanged();
    }

    @Test
    void speedLimitBelowOneKiB() throws Exception {
        mvc.perform(speedLimits("ab-held", "{\"min\":100}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("min"));
        assertNothingChanged();
    }

    @Test
    void unknownArray() throws Exception {
        mvc.perform(get("/api/v1/arrays/ab-nobody").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(delete("/api/v1/arrays/ab-nobody").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(addMember("ab-nobody", "{\"device\":\"ab-c0\"}")).andExpect(problem(404, "not-found"));
        mvc.perform(failMember("ab-nobody", "ab-c0")).andExpect(problem(404, "not-found"));
        mvc.perform(sync("ab-nobody", "check")).andExpect(problem(404, "not-found"));
        assertNothingChanged();
    }

    @Test
    void unknownMemberOfAnArray() throws Exception {
        mvc.perform(failMember("ab-held", "ab-c0")).andExpect(problem(404, "not-found"));
        mvc.perform(removeMember("ab-held", "ab-c0")).andExpect(problem(404, "not-found"));
        assertNothingChanged();
    }

    @Test
    void deletingAMemberDisk() throws Exception {
        mvc.perform(delete("/api/v1/disks/ab-h0").with(admin()))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders", contains("array ab-held")));
        mvc.perform(delete("/api/v1/disks/ab-h0").param("force", "true").with(admin()))
                .andExpect(problem(409, "device-busy"));
        assertNothingChanged();
    }

    /* ---- md metadata (issue 17) ---- */

    @Test
    void metadataChoicesThatDoNotFit() throws Exception {
        String pair = "\"members\":[\"ab-c0\",\"ab-c1\"]";
        // what follows the members in a raid1 request, and the field the refusal must name
        String[][] refused = {
                {"\"metadata\":\"0.90\"", "metadata"},
                {"\"bitmap\":\"external\"", "bitmap"},
                {"\"metadata\":\"none\",\"bitmap\":\"internal\"", "bitmap"},
                {"\"bitmap\":\"none\",\"bitmapChunk\":\"1MiB\"", "bitmapChunk"},
                {"\"bitmapChunk\":\"3KiB\"", "bitmapChunk"},
                {"\"bitmap\":\"none\",\"bitmapDelay\":5", "bitmapDelay"},
                {"\"bitmapDelay\":0", "bitmapDelay"},
                {"\"bitmapDelay\":3601", "bitmapDelay"}};
        for (String[] r : refused) {
            create("{\"name\":\"ab-new\",\"level\":\"raid1\"," + pair + "," + r[0] + "}", 400, "validation-failed", r[1]);
        }
        create("{\"name\":\"ab-new\",\"level\":\"raid0\"," + pair + ",\"bitmap\":\"internal\"}",
                400, "validation-failed", "bitmap");
        mvc.perform(createArray("{\"name\":\"ab-a-name-longer-than-md-keeps-in-a-superblock\",\"level\":\"raid1\","
                        + pair + "}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("name"))
                .andExpect(jsonPath("$.detail").value(containsString("32 bytes")));
        assertNothingChanged();
    }

    private static org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder assemble(String json) {
        return org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post("/api/v1/arrays/assemble")
                .with(admin()).contentType(org.springframework.http.MediaType.APPLICATION_JSON).content(json);
    }

    @Test
    void assemblingFromDevicesThatCannotBeUsed() throws Exception {
        mvc.perform(assemble("{\"devices\":[]}")).andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("devices"));
        mvc.perform(assemble("{\"devices\":[\"ab-nobody\"]}")).andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("devices[0]"));
        mvc.perform(assemble("{\"devices\":[\"ab-h0\"]}")).andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.field").value("devices[0]"))
                .andExpect(jsonPath("$.holders", contains("array ab-held")));
        mvc.perform(assemble("{\"devices\":[\"ab-c0\",\"ab-c0\"]}")).andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("devices[1]"));
        mvc.perform(assemble("{\"devices\":[\"ab-c0\",\"ab-c1\"]}")).andExpect(problem(409, "conflict"))
                .andExpect(jsonPath("$.field").value("devices"))
                .andExpect(jsonPath("$.detail").value(containsString("no device has a usable md superblock")))
                .andExpect(jsonPath("$.detail").value(containsString("ab-c1: no md superblock (the superblock area is blank)")));
        mvc.perform(assemble("{\"name\":\"ab-c2\",\"devices\":[\"ab-c0\"]}")).andExpect(problem(409, "name-taken"))
                .andExpect(jsonPath("$.field").value("name"));
        mvc.perform(assemble("{\"name\":\"bad name\",\"devices\":[\"ab-c0\"]}")).andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("name"));
        assertNothingChangedButReads();
    }

    @Test
    void assembleBodiesThatAreNotWhatTheSchemaSays() throws Exception {
        mvc.perform(assemble("{\"devices\":[\"ab-c0\",")).andExpect(problem(400, "malformed-json"));
        mvc.perform(assemble("{\"devices\":\"ab-c0\"}")).andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("devices"));
        mvc.perform(assemble("{\"devices\":[\"ab-c0\"],\"force\":true}")).andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("force"))
                .andExpect(jsonPath("$.detail").value(containsString("unknown field 'force'")));
        mvc.perform(assemble("{}")).andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("devices"));
        mvc.perform(assemble("{\"devices\":[\"ab-c0\"],\"strategies\":{\"flush\":\"sometimes\"}}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("strategies.flush"));
        mvc.perform(assemble("{\"devices\":[\"ab-c0\"],\"speedLimits\":{\"min\":\"2MiB\",\"max\":\"1MiB\"}}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("speedLimits.max"));
        mvc.perform(org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post("/api/v1/arrays/assemble")
                        .with(viewer()).contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                        .content("{\"devices\":[\"ab-c0\"]}"))
                .andExpect(problem(403, "forbidden"));
        assertNothingChanged();
    }

    @Test
    void parityChoicesThatDoNotFitTheMetadata() throws Exception {
        String three = "\"members\":[\"ab-c0\",\"ab-c1\",\"ab-c2\"]";
        // md refuses a bitmap beside a journal, and the journal device is not in Blockwork's superblocks
        create("{\"name\":\"ab-new\",\"level\":\"raid5\"," + three + ",\"journal\":\"ab-c3\",\"metadata\":\"1.2\"}",
                400, "validation-failed", "journal");
        create("{\"name\":\"ab-new\",\"level\":\"raid5\"," + three + ",\"journal\":\"ab-c3\",\"bitmap\":\"internal\"}",
                400, "validation-failed", "bitmap");
        create("{\"name\":\"ab-new\",\"level\":\"raid6\",\"members\":[\"ab-c0\",\"ab-c1\",\"ab-c2\",\"ab-c3\"],"
                + "\"bitmapChunk\":\"12KiB\"}", 400, "validation-failed", "bitmapChunk");
        assertNothingChanged();
    }

    @Test
    void examiningDevices() throws Exception {
        mvc.perform(get("/api/v1/devices/ab-nobody/examine").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/ab-down/examine").with(admin())).andExpect(problem(409, "conflict"));
        mvc.perform(get("/api/v1/devices/ab-c0/examine").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$.found").value(false))
                .andExpect(jsonPath("$.usable").value(false))
                .andExpect(jsonPath("$.problem").value(containsString("blank")));
        mvc.perform(get("/api/v1/devices/ab-h1/examine").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$.usable").value(true))
                .andExpect(jsonPath("$.superblock.raidLevel").value("raid1"))
                .andExpect(jsonPath("$.superblock.deviceRole").value("Active device 1"))
                .andExpect(jsonPath("$.superblock.arrayState").value("AA"))
                .andExpect(jsonPath("$.superblock.checksumCorrect").value(true))
                .andExpect(jsonPath("$.bitmap").doesNotExist());
        assertNothingChangedButReads();
    }
}
