package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.support.TempDataDir;
import io.blockwork.support.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, workloads: finished ones stay in H2 across a restart, a running one ends cleanly when
 * the service stops (recorded as cancelled, with its figures so far), and one a crash left
 * running is marked interrupted at the next start.
 */
@Tag("api")
class WorkloadRestartTest {

    private static final Duration WAIT = Duration.ofSeconds(120);

    private static long start(ServiceClient api, String json) throws Exception {
        var r = api.postJson("/api/v1/workloads", json);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return ((Number) JsonPath.read(r.body(), "$.id")).longValue();
    }

    private static String state(ServiceClient api, long id) throws Exception {
        return JsonPath.read(api.get("/api/v1/workloads/" + id).body(), "$.state");
    }

    @Test
    void historySurvivesARestartAndARunningWorkloadEndsCleanlyAtShutdown() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        long finished;
        long running;
        try (RunningService service = RunningService.start(dataDir)) {
            ServiceClient api = service.client();
            assertThat(api.postJson("/api/v1/disks", "{\"name\":\"wr-d\",\"type\":\"memory\",\"size\":\"16MiB\"}")
                    .statusCode()).isEqualTo(201);
            finished = start(api, "{\"device\":\"wr-d\",\"rw\":\"randwrite\",\"io\":\"1MiB\",\"verify\":\"crc32c\"}");
            await().atMost(WAIT).until(() -> state(api, finished).equals("finished"));
            running = start(api, "{\"device\":\"wr-d\",\"rw\":\"randread\",\"iodepth\":4,\"runtime\":\"3600s\"}");
            await().atMost(WAIT).until(() -> ((Number) JsonPath.read(api.get("/api/v1/workloads/" + running).body(),
                    "$.progress.reads")).longValue() > 0);
        }
        // a crash: a row left running, as kill -9 would leave it
        try (Connection db = TestDatabase.current().connect(dataDir)) {
            db.createStatement().executeUpdate("INSERT INTO workloads (device_name, rw, spec, state, started_at) "
                    + "SELECT device_name, rw, spec, 'running', started_at FROM workloads WHERE id = " + finished);
        }
        try (RunningService service = RunningService.start(dataDir)) {
            ServiceClient api = service.client();
            String list = api.get("/api/v1/workloads?limit=10").body();
            assertThat(JsonPath.<java.util.List<Object>>read(list, "$")).hasSize(3);
            String done = api.get("/api/v1/workloads/" + finished).body();
            assertThat(JsonPath.<String>read(done, "$.state")).isEqualTo("finished");
            assertThat(JsonPath.<Integer>read(done, "$.result.verify.mismatches")).isZero();
            String stopped = api.get("/api/v1/workloads/" + running).body();
            assertThat(JsonPath.<String>read(stopped, "$.state")).isEqualTo("cancelled");
            assertThat(JsonPath.<String>read(stopped, "$.error")).isEqualTo("the service stopped while it ran");
            assertThat(((Number) JsonPath.read(stopped, "$.result.read.ios")).longValue()).isPositive();
            long crashed = ((Number) JsonPath.read(list, "$[0].id")).longValue();
            assertThat(JsonPath.<String>read(api.get("/api/v1/workloads/" + crashed).body(), "$.state"))
                    .isEqualTo("interrupted");
        }
    }
}
