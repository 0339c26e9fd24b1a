package io.blockwork.export.app;

import static io.blockwork.export.web.ExportRequests.createExport;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.nbd.RawNbdClient;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.ForcedRemoval;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.support.AppTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;

/** Export operations change the database, the server's table and the device's holders together, or none. */
@AppTest
class ExportConsistencyTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    ExportService exports;
    @Autowired
    DeviceRegistry registry;
    @Autowired
    ManagementOperations management;
    @Autowired
    ForcedRemoval forcedRemoval;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    NbdServerLifecycle nbd;

    /** A row written behind the service's back makes the save fail after the export went live. */
    @Test
    void aFailingSaveLeavesNoExportAndNoClaimBehind() throws Exception {
        mvc.perform(memoryDisk("ec-d1", "1MiB")).andExpect(status().isCreated());
        jdbc.update("INSERT INTO exports (name, device_name, device_kind, read_only, description, created_at)"
                + " VALUES ('ec-ghost', 'ec-elsewhere', 'disk', FALSE, '', CURRENT_TIMESTAMP)");
        try {
            // The service itself: the API's create-or-confirm reads the ghost row first and answers
            // name-taken without building anything, so only a create that races past it meets this.
            assertThatThrownBy(() -> exports.create(new ExportSpec("ec-ghost", "ec-d1", false, "")))
                    .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.problem()).isEqualTo(Problem.CONFLICT));
            assertThat(nbd.exports().find("ec-ghost")).isEmpty();
            assertThat(registry.require("ec-d1").holders()).isEmpty();
        } finally {
            jdbc.update("DELETE FROM exports WHERE name = 'ec-ghost'");
        }
    }

    /** A forced device delete that fails after dropping the exports puts them back, clients untouched. */
    @Test
    void aRolledBackForcedDeleteKeepsTheExportItsClaimAndItsClients() throws Exception {
        mvc.perform(memoryDisk("ec-d2", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createExport("{\"name\":\"ec-e2\",\"device\":\"ec-d2\"}")).andExpect(status().isCreated());
        try (RawNbdClient client = RawNbdClient.connect(nbd.endpoint().orElseThrow().port()).greet().go("ec-e2")) {
            // the server lists a client once its reader is past the handshake, a moment after the client's GO
            await().atMost(Duration.ofSeconds(20)).until(() -> nbd.clients("ec-e2").size() == 1);
            assertThatThrownBy(() -> management.run(changes -> {
                forcedRemoval.dropHolders("ec-d2", changes);
                RegisteredDevice entry = registry.unregister("ec-d2");
                changes.undoOnRollback(() -> registry.reinstate(entry));
                throw new IllegalStateException("the database said no");
            })).hasMessage("the database said no");

            assertThat(registry.require("ec-d2").holders()).containsExactly(new Holder("export", "ec-e2"));
            assertThat(nbd.exports().find("ec-e2")).isPresent();
            mvc.perform(get("/api/v1/exports/ec-e2").with(admin()))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.state.actual").value("active"))
                    .andExpect(jsonPath("$.clients.length()").value(1));
            assertThat(client.read(1, 0, 512).error()).as("the client is still served").isZero();
        }
    }
}
