package io.blockwork.dm.web;

import static io.blockwork.support.DmRequests.DEVICES;
import static io.blockwork.support.Listings.named;
import static io.blockwork.support.DmRequests.createDm;
import static io.blockwork.support.DmRequests.jsonString;
import static io.blockwork.support.DmRequests.loadJson;
import static io.blockwork.support.DmRequests.loadText;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.createDisk;
import static io.blockwork.support.Requests.memoryDisk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Acceptance 5: every table the engine refuses answers 400 invalid-table with {@code field:
 * "table"} and the {@code line} at fault, named in the detail, and changes nothing: the device
 * keeps its live and inactive tables, the database rows stay as they were, and no device gains or
 * loses a holder. Each case runs as a load into an existing device and as a create.
 */
@AppTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DmTableValidationTest {

    private static final String LIVE = "0 2048 linear dmv-d1 0\n";
    private static final String INACTIVE = "0 1024 linear dmv-d2 0\n1024 1024 zero\n";

    @Autowired
    MockMvc mvc;
    @Autowired
    JdbcTemplate jdbc;

    private String before;

    @BeforeAll
    void devices() throws Exception {
        mvc.perform(memoryDisk("dmv-d1", "1MiB")).andExpect(status().isCreated());
        mvc.perform(memoryDisk("dmv-d2", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createDisk("{\"name\":\"dmv-4k\",\"type\":\"memory\",\"size\":\"1MiB\",\"logicalBlockSize\":4096}"))
                .andExpect(status().isCreated());
        mvc.perform(createDm("dmv-dev", LIVE)).andExpect(status().isCreated());
        mvc.perform(loadText("dmv-dev", INACTIVE)).andExpect(status().isOk());
        mvc.perform(createDm("dmv-up", "0 1024 linear dmv-dev 0")).andExpect(status().isCreated());
    }

    @BeforeEach
    void rememberState() throws Exception {
        before = everything();
    }

    /** This class's mapped devices and block devices as the API shows them (holders, counters), and the database rows. */
    private String everything() throws Exception {
        return named(mvc, DEVICES, "dmv-") + named(mvc, "/api/v1/devices", "dmv-")
                + jdbc.queryForList("SELECT name, uuid, live_table, inactive_table, suspended, flush_strategy, uses"
                + " FROM dm_devices WHERE name LIKE 'dmv-%' ORDER BY name");
    }

    private void assertNothingChanged() throws Exception {
        String after = everything();
        assertThat(after).isEqualTo(before);
        assertThat(after).contains("\"table\":\"0 2048 linear dmv-d1 0\\n\"",
                "\"inactiveTable\":\"0 1024 linear dmv-d2 0\\n1024 1024 zero\\n\"", "\"holders\":[\"dm dmv-dev\"]");
    }

    static Stream<Arguments> refusedTables() {
        return Stream.of(
                Arguments.of("gap", "0 1024 zero\n2048 1024 zero", 2, "gap in table"),
                Arguments.of("overlap", "0 1024 zero\n512 1024 zero", 2, "overlap"),
                Arguments.of("not starting at 0", "8 1024 zero", 1, "must start at sector 0"),
                Arguments.of("zero length", "0 0 zero", 1, "zero-length target"),
                Arguments.of("unknown target after a comment", "# first line\n0 8 frobnicate", 2,
                        "unknown target type 'frobnicate'"),
                Arguments.of("too few arguments", "0 8 zero\n8 8 linear dmv-d1", 2, "linear"),
                Arguments.of("bad argument", "0 8 linear dmv-d1 x", 1, "linear"),
                Arguments.of("unknown device", "0 8 zero\n\n8 8 linear no-such-disk 0", 3, "no-such-disk"),
                Arguments.of("device too small", "0 4096 linear dmv-d2 0", 1, "too small"),
                Arguments.of("device too small at an offset", "0 8 linear dmv-d2 2044", 1, "dev_size=2048"),
                Arguments.of("striped chunk not dividing", "0 2048 striped 2 3 dmv-d1 0 dmv-d2 0", 1, "striped"),
                Arguments.of("misaligned for a 4K device", "0 9 linear dmv-4k 0", 1, "not aligned"),
                Arguments.of("missing fields", "0 8", 1, "expected '<start> <length> <target>"),
                Arguments.of("start not a number", "zero 8 zero", 1, "invalid start"),
                Arguments.of("flakey feature conflict", "0 8 flakey dmv-d1 0 1 1 2 drop_writes error_writes", 1,
                        "flakey"),
                Arguments.of("delay with a bad delay", "0 8 delay dmv-d1 0 soon", 1, "delay"),
                Arguments.of("mirror with an unknown log type", "0 8 zero\n8 1024 mirror disc 1 128 2 dmv-d1 0 dmv-d2 0",
                        2, "unknown log type 'disc'"),
                Arguments.of("mirror with a missing leg", "0 1024 mirror core 1 128 2 dmv-d1 0", 1,
                        "Too few mirror arguments"),
                Arguments.of("mirror with a bad region size", "0 1024 mirror core 1 100 2 dmv-d1 0 dmv-d2 0", 1,
                        "invalid region size 100"));
    }

    @ParameterizedTest(name = "load: {0}")
    @MethodSource("refusedTables")
    void aRefusedLoadChangesNothing(String what, String table, int line, String reason) throws Exception {
        mvc.perform(loadText("dmv-dev", table))
                .andExpect(problem(400, "invalid-table"))
                .andExpect(jsonPath("$.field").value("table"))
                .andExpect(jsonPath("$.line").value(line))
                .andExpect(jsonPath("$.detail").value(startsWith("line " + line + ": ")))
                .andExpect(jsonPath("$.detail").value(containsString(reason)));
        assertNothingChanged();
    }

    @ParameterizedTest(name = "create: {0}")
    @MethodSource("refusedTables")
    void aRefusedCreateChangesNothing(String what, String table, int line, String reason) throws Exception {
        mvc.perform(createDm("dmv-new", table))
                .andExpect(problem(400, "invalid-table"))
                .andExpect(jsonPath("$.field").value("table"))
                .andExpect(jsonPath("$.line").value(line))
                .andExpect(jsonPath("$.detail").value(containsString(reason)));
        assertNothingChanged();
        mvc.perform(get("/api/v1/devices/dmv-new").with(admin())).andExpect(problem(404, "not-found"));
    }

    @Test
    void aTableUsingTheDeviceItselfIsACycle() throws Exception {
        mvc.perform(loadText("dmv-dev", "0 8 zero\n8 8 linear dmv-dev 0"))
                .andExpect(problem(400, "invalid-table"))
                .andExpect(jsonPath("$.line").value(2))
                .andExpect(jsonPath("$.detail").value(containsString("device cycle")));
        assertNothingChanged();
    }

    @Test
    void aTableUsingADeviceStackedOnItIsACycle() throws Exception {
        mvc.perform(loadText("dmv-dev", "0 8 linear dmv-up 0"))
                .andExpect(problem(400, "invalid-table"))
                .andExpect(jsonPath("$.line").value(1))
                .andExpect(jsonPath("$.detail").value(containsString("'dmv-dev' -> 'dmv-up' -> 'dmv-dev'")));
        assertNothingChanged();
    }

    @Test
    void aTableWithoutTargetsIsRefused() throws Exception {
        mvc.perform(loadText("dmv-dev", "# nothing here\n\n"))
                .andExpect(problem(400, "invalid-table")).andExpect(jsonPath("$.line").value(1))
                .andExpect(jsonPath("$.detail").value(containsString("no targets")));
        mvc.perform(createDm("dmv-new", ""))
                .andExpect(problem(400, "invalid-table")).andExpect(jsonPath("$.line").value(1));
        assertNothingChanged();
    }

    @Test
    void aTargetObjectWithoutATargetNamesItsPosition() throws Exception {
        mvc.perform(loadJson("dmv-dev", """
                        {"table":[{"start":0,"length":8,"target":"zero"},{"start":8,"length":8}]}"""))
                .andExpect(problem(400, "invalid-table"))
                .andExpect(jsonPath("$.line").value(2))
                .andExpect(jsonPath("$.detail").value("line 2: missing target type"));
        assertNothingChanged();
    }

    @Test
    void aTargetObjectWithANegativeStartNamesItsPosition() throws Exception {
        mvc.perform(createDm("""
                        {"name":"dmv-new","table":[{"start":-8,"length":8,"target":"zero"}]}"""))
                .andExpect(problem(400, "invalid-table"))
                .andExpect(jsonPath("$.line").value(1))
                .andExpect(jsonPath("$.detail").value(containsString("invalid start '-8'")));
        assertNothingChanged();
    }

    @Test
    void aTargetObjectWithoutALengthNamesItsPosition() throws Exception {
        mvc.perform(loadJson("dmv-dev", """
                        {"table":[{"start":0,"target":"zero"}]}"""))
                .andExpect(problem(400, "invalid-table"))
                .andExpect(jsonPath("$.detail").value("line 1: missing length"));
        assertNothingChanged();
    }

    @Test
    void aTargetObjectWithAnUnknownFieldIsRefused() throws Exception {
        mvc.perform(loadJson("dmv-dev", """
                        {"table":[{"start":0,"length":8,"target":"zero","colour":"red"}]}"""))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("table"))
                .andExpect(jsonPath("$.detail").value(containsString("unknown field 'colour' in target 1")));
        assertNothingChanged();
    }

    @Test
    void aTableThatIsNeitherTextNorAListIsRefused() throws Exception {
        mvc.perform(loadJson("dmv-dev", "{\"table\":42}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("table"));
        mvc.perform(loadJson("dmv-dev", "{}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("table"));
        assertNothingChanged();
    }

    @Test
    void aTableForAnUnknownDeviceIsNotFound() throws Exception {
        mvc.perform(loadText("dmv-nothing", "0 8 zero")).andExpect(problem(404, "not-found"));
        assertNothingChanged();
    }

    @Test
    void createWithATakenNameIsRefused() throws Exception {
        mvc.perform(createDm("dmv-d1", "0 8 zero"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.field").value("name"));
        assertNothingChanged();
    }

    @Test
    void createWithAnInvalidNameIsRefused() throws Exception {
        mvc.perform(createDm("DMV New", "0 8 zero"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("name"));
        assertNothingChanged();
    }

    @Test
    void createWithAUuidOfWhiteSpaceIsRefused() throws Exception {
        mvc.perform(createDm("{\"name\":\"dmv-new\",\"uuid\":\"a b\",\"table\":\"0 8 zero\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("uuid"));
        assertNothingChanged();
    }

    @Test
    void createWithATakenUuidIsRefused() throws Exception {
        mvc.perform(createDm("{\"name\":\"dmv-uuid1\",\"uuid\":\"DMV-U\",\"table\":\"0 8 zero\"}"))
                .andExpect(status().isCreated());
        before = everything();
        mvc.perform(createDm("{\"name\":\"dmv-new\",\"uuid\":\"DMV-U\",\"table\":\"0 8 zero\"}"))
                .andExpect(problem(409, "conflict")).andExpect(jsonPath("$.field").value("uuid"));
        assertNothingChanged();
    }

    @Test
    void createWithAnUnknownStrategyIsRefused() throws Exception {
        mvc.perform(createDm("{\"name\":\"dmv-new\",\"table\":" + jsonString("0 8 zero")
                        + ",\"strategies\":{\"flush\":\"sometimes\"}}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("strategies.flush"));
        assertNothingChanged();
    }

    @Test
    void createWithAnUnknownBatchDispatchIsRefused() throws Exception {
        mvc.perform(createDm("{\"name\":\"dmv-new\",\"table\":" + jsonString("0 8 zero")
                        + ",\"strategies\":{\"batchDispatch\":\"lazy\"}}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("strategies.batchDispatch"));
        assertNothingChanged();
    }

    @Test
    void createWithAnUnknownSnapshotLockingIsRefused() throws Exception {
        mvc.perform(createDm("{\"name\":\"dmv-new\",\"table\":" + jsonString("0 8 zero")
                        + ",\"strategies\":{\"snapshotLocking\":\"none\"}}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("strategies.snapshotLocking"));
        assertNothingChanged();
    }
}
