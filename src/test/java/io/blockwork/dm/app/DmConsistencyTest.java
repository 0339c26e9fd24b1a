package io.blockwork.dm.app;

import static io.blockwork.support.DmRequests.createDm;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.support.AppTest;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;

/**
 * "A management operation either changes both the database and the live engine, or neither":
 * each device-mapper operation, run inside a management operation whose transaction then rolls
 * back, leaves the engine (tables, suspended state, open counts), the registry (names, holders)
 * and the database as they were, and the device still serves I/O.
 */
@AppTest
class DmConsistencyTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    DmService dms;
    @Autowired
    DmService dm;
    @Autowired
    DeviceRegistry registry;
    @Autowired
    ManagementOperations management;
    @Autowired
    JdbcTemplate jdbc;

    /** disks {p}-d1 and {p}-d2, {p}-low on d1 with a table loaded for d2, {p}-up on {p}-low. */
    private void stack(String p) throws Exception {
        mvc.perform(memoryDisk(p + "-d1", "1MiB")).andExpect(status().isCreated());
        mvc.perform(memoryDisk(p + "-d2", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createDm(p + "-low", "0 2048 linear " + p + "-d1 0")).andExpect(status().isCreated());
        dm.load(p + "-low", new TableInput.Text("0 2048 linear " + p + "-d2 0"));
        mvc.perform(createDm(p + "-up", "0 1024 linear " + p + "-low 1024")).andExpect(status().isCreated());
    }

    /** What must not change, for every name starting with {@code p}. */
    private String state(String p) {
        StringBuilder s = new StringBuilder();
        for (RegisteredDevice e : registry.list()) {
            if (!e.name().startsWith(p)) {
                continue;
            }
            s.append(e.name()).append(' ').append(e.kind()).append(" holders=")
                    .append(e.holders().stream().map(Holder::toString).sorted().collect(Collectors.joining(",")));
            if (e.device() instanceof MappedDevice m) {
                s.append(" live=[").append(m.tableText()).append("] inactive=[").append(m.inactiveTableText())
                        .append("] state=").append(m.state()).append(" open=").append(m.info().openCount());
            }
            s.append('\n');
        }
        List<String> rows = jdbc.queryForList("SELECT name || ' ' || live_table || ' ' || COALESCE(inactive_table, '-')"
                + " || ' ' || suspended || ' ' || uses FROM dm_devices WHERE name LIKE ? ORDER BY name", String.class, p + "%");
        return s + String.join("\n", rows);
    }

    private void rolledBack(String p, Runnable operation) throws Exception {
        String before = state(p);
        assertThatThrownBy(() -> management.run(changes -> {
            operation.run();
            throw new IllegalStateException("the database said no");
        })).hasMessage("the database said no");
        assertThat(state(p)).isEqualTo(before);
    }

    private void assertServesIo(String device) throws Exception {
        byte[] data = new byte[8192];
        new Random(device.hashCode()).nextBytes(data);
        mvc.perform(writeData(device, 4096, data)).andExpect(status().isNoContent());
        mvc.perform(readData(device, 4096, data.length)).andExpect(content().bytes(data));
    }

    @Test
    void aFailingSaveLeavesNoDeviceAndNoHoldsBehind() throws Exception {
        stack("dmc-save");
        // a row the registry does not know about, as if written behind the service's back
        jdbc.update("INSERT INTO dm_devices (name, live_table, suspended, flush_strategy, uses, created_at)"
                + " VALUES ('dmc-save-ghost', '', FALSE, 'per-device', '', CURRENT_TIMESTAMP)");
        try {
            String before = state("dmc-save");
            // The service itself: the API's create-or-confirm reads the ghost row first and answers
            // name-taken without building anything, so only a create that races past it meets this.
            assertThatThrownBy(() -> dms.create(new DmCreate("dmc-save-ghost", null,
                    new TableInput.Text("0 8 linear dmc-save-up 0\n8 8 linear dmc-save-d2 0"), null)))
                    .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.problem()).isEqualTo(Problem.CONFLICT));
            assertThat(registry.find("dmc-save-ghost")).isEmpty();
            assertThat(state("dmc-save")).isEqualTo(before).contains("dmc-save-up DM holders= live");
        } finally {
            jdbc.update("DELETE FROM dm_devices WHERE name = 'dmc-save-ghost'");
        }
    }

    @Test
    void createIsUndone() throws Exception {
        stack("dmc-cr");
        rolledBack("dmc-cr", () -> dm.create(new DmCreate("dmc-cr-top", null,
                new TableInput.Text("0 8 linear dmc-cr-up 0"), null)));
        assertThat(registry.find("dmc-cr-top")).isEmpty();
        assertServesIo("dmc-cr-up");
    }

    @Test
    void loadIsUndone() throws Exception {
        stack("dmc-ld");
        rolledBack("dmc-ld", () -> dm.load("dmc-ld-up", new TableInput.Text("0 8 zero")));
        rolledBack("dmc-ld", () -> dm.load("dmc-ld-low", new TableInput.Text("0 2048 zero")));
        assertServesIo("dmc-ld-up");
    }

    @Test
    void clearIsUndone() throws Exception {
        stack("dmc-cl");
        rolledBack("dmc-cl", () -> dm.clear("dmc-cl-low"));
        assertServesIo("dmc-cl-up");
    }

    @Test
    void suspendIsUndone() throws Exception {
        stack("dmc-su");
        rolledBack("dmc-su", () -> dm.suspend("dmc-su-up", false));
        rolledBack("dmc-su", () -> dm.suspend("dmc-su-low", true));
        assertServesIo("dmc-su-up");
    }

    @Test
    void resumeIsUndone() throws Exception {
        stack("dmc-re");
        dm.suspend("dmc-re-low", false);
        // from suspended, swapping the loaded table in
        rolledBack("dmc-re", () -> dm.resume("dmc-re-low"));
        assertThat(state("dmc-re")).contains("dmc-re-low DM holders=dm dmc-re-up live=[0 2048 linear dmc-re-d1 0\n]"
                + " inactive=[0 2048 linear dmc-re-d2 0\n] state=SUSPENDED");
        dm.resume("dmc-re-low");
        dm.load("dmc-re-low", new TableInput.Text("0 2048 linear dmc-re-d1 0"));
        // from active, suspending first
        rolledBack("dmc-re", () -> dm.resume("dmc-re-low"));
        assertServesIo("dmc-re-up");
    }

    @Test
    void renameIsUndone() throws Exception {
        stack("dmc-rn");
        rolledBack("dmc-rn", () -> dm.rename("dmc-rn-low", "dmc-rn-lower"));
        assertThat(registry.find("dmc-rn-lower")).isEmpty();
        assertServesIo("dmc-rn-up");
    }

    @Test
    void deleteIsUndone() throws Exception {
        stack("dmc-de");
        rolledBack("dmc-de", () -> dm.delete("dmc-de-up", false));
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"dmc-de-up\"}")).andExpect(status().isCreated());
        rolledBack("dmc-de", () -> dm.delete("dmc-de-up", true));
        assertThat(state("dmc-de")).contains("dmc-de-up DM holders=export dmc-de-up live=");
        mvc.perform(get("/api/v1/exports/dmc-de-up").with(admin())).andExpect(status().isOk());
        assertServesIo("dmc-de-up");
    }
}
