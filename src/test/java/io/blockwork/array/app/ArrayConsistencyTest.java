package io.blockwork.array.app;

import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.patch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.engine.md.MdArrays;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.support.AppTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;

/**
 * "Either both the database and the engine change, or neither": a save that fails after the
 * engine changed undoes the engine change; a change the array makes on its own reaches the rows.
 */
@AppTest
class ArrayConsistencyTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    DeviceRegistry registry;
    @Autowired
    MdArrays engine;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    ArrayService arrays;

    private void disk(String name) throws Exception {
        mvc.perform(memoryDisk(name, "4MiB")).andExpect(status().isCreated());
    }

    private static String json(String... kv) {
        StringBuilder s = new StringBuilder("{");
        for (int i = 0; i < kv.length; i += 2) {
            s.append(i == 0 ? "" : ",").append('"').append(kv[i]).append("\":").append(kv[i + 1]);
        }
        return s.append('}').toString();
    }

    private Map<String, String> rows(String array) {
        Map<String, String> out = new java.util.TreeMap<>();
        jdbc.query("SELECT m.device_name, m.state, m.fault_reason FROM array_members m JOIN arrays a ON a.id = m.array_id"
                + " WHERE a.name = ?", rs -> {
                    out.put(rs.getString(1), rs.getString(2) + (rs.getString(3) == null ? "" : " " + rs.getString(3)));
                }, array);
        return out;
    }

    /** A row the registry does not know about makes the save fail after the array was built, registered and claimed its members. */
    @Test
    void aFailingSaveStopsTheArrayAndFreesItsMembers() throws Exception {
        disk("cs-c0");
        disk("cs-c1");
        jdbc.update("INSERT INTO arrays (name, level, raid_devices, chunk_bytes, member_bytes, flush_strategy,"
                + " barrier_strategy, speed_min_kibps, speed_max_kibps, resync_pending, created_at)"
                + " VALUES ('cs-ghost', 'raid1', 2, 0, 0, 'fanout', 'optimistic', 1000, 200000, FALSE, CURRENT_TIMESTAMP)");
        try {
            // The service itself: the API's create-or-confirm reads the ghost row first and answers
            // name-taken without building anything, so only a create that races past it meets this.
            assertThatThrownBy(() -> arrays.create(new ArrayCreate("cs-ghost", "raid1", List.of("cs-c0", "cs-c1"), null,
                    null, null, null, null, null, null, false, null, null, null, null, null, null, null)))
                    .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.problem()).isEqualTo(Problem.CONFLICT));
            assertThat(registry.find("cs-ghost")).isEmpty();
            assertThat(engine.get("cs-ghost")).isEmpty();
            assertThat(registry.require("cs-c0").holders()).isEmpty();
            assertThat(registry.require("cs-c1").holders()).isEmpty();
        } finally {
            jdbc.update("DELETE FROM arrays WHERE name = 'cs-ghost'");
        }
        // the disks are really free: the engine lets a new array have them
        mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content(json("name", "\"cs-real\"", "level", "\"raid1\"", "members", "[\"cs-c0\",\"cs-c1\"]")))
                .andExpect(status().isCreated());
    }

    /** The device is already in a stored member row (behind the service's back): the added spare is taken out again. */
    @Test
    void aFailingSaveTakesAnAddedSpareOutAgain() throws Exception {
        disk("cs-a0");
        disk("cs-a1");
        disk("cs-a2");
        mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content(json("name", "\"cs-add\"", "level", "\"raid1\"", "members", "[\"cs-a0\",\"cs-a1\"]")))
                .andExpect(status().isCreated());
        jdbc.update("INSERT INTO arrays (name, level, raid_devices, chunk_bytes, member_bytes, flush_strategy,"
                + " barrier_strategy, speed_min_kibps, speed_max_kibps, resync_pending, created_at)"
                + " VALUES ('cs-other', 'raid1', 2, 0, 0, 'fanout', 'optimistic', 1000, 200000, FALSE, CURRENT_TIMESTAMP)");
        jdbc.update("INSERT INTO array_members (array_id, device_name, device_kind, state, replacement)"
                + " SELECT id, 'cs-a2', 'disk', 'spare', FALSE FROM arrays WHERE name = 'cs-other'");
        try {
            Map<String, String> before = rows("cs-add");
            mvc.perform(post("/api/v1/arrays/cs-add/members").with(admin()).contentType(MediaType.APPLICATION_JSON)
                    .content("{\"device\":\"cs-a2\"}")).andExpect(problem(409, "conflict"));
            assertThat(engine.get("cs-add").orElseThrow().detail().members())
                    .noneMatch(m -> "cs-a2".equals(m.device()));
            assertThat(registry.require("cs-a2").holders()).isEmpty();
            assertThat(rows("cs-add")).isEqualTo(before);
        } finally {
            jdbc.update("DELETE FROM arrays WHERE name = 'cs-other'");
        }
    }

    /** md_error: a member whose write fails is marked faulty by the engine, and the recorder stores that. */
    @Test
    void aMemberFailedByAnIoErrorIsStoredAsFaulty() throws Exception {
        disk("cs-e0");
        disk("cs-e1");
        mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content(json("name", "\"cs-err\"", "level", "\"raid1\"", "members", "[\"cs-e0\",\"cs-e1\"]")))
                .andExpect(status().isCreated());
        mvc.perform(patch("/api/v1/disks/cs-e1").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"faults\":{\"failWrites\":true}}")).andExpect(status().isOk());
        // the write succeeds on the other mirror; the caller sees nothing
        mvc.perform(writeData("cs-err", 0, new byte[65536])).andExpect(status().isNoContent());
        await().atMost(Duration.ofSeconds(30)).until(() -> rows("cs-err").get("cs-e1").startsWith("faulty "));
        assertThat(rows("cs-err").get("cs-e0")).isEqualTo("in_sync");
        assertThat(List.of(rows("cs-err").get("cs-e1"))).allMatch(r -> r.contains("error"));
    }
}
