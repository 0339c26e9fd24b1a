package io.blockwork.workload.web;

import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.support.AppTest;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Issue 15, acceptance 4: every seed's experiment runs end to end over REST with one-second
 * runs, on devices nobody else sees, and reports both strategies and their ratio in the seed's
 * direction. Which strategy wins is a benchmark's question, not a test's (a one-second run on a
 * shared machine decides nothing): the test checks what is reported, not how fast.
 */
@AppTest
class ExperimentApiTest {

    private static final Duration WAIT = Duration.ofMinutes(5);

    @Autowired
    MockMvc mvc;

    private String start(String seed) throws Exception {
        return mvc.perform(post("/api/v1/experiments").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"seed\":\"" + seed + "\",\"seconds\":1}"))
                .andExpect(status().isCreated())
                .andReturn().getResponse().getContentAsString();
    }

    private String show(long id) throws Exception {
        return mvc.perform(get("/api/v1/experiments/{id}", id).with(viewer())).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsString();
    }

    private String finished(long id) {
        String[] last = new String[1];
        await().atMost(WAIT).until(() -> {
            last[0] = show(id);
            return !"running".equals(JsonPath.read(last[0], "$.state"));
        });
        return last[0];
    }

    private static long id(String json) {
        return ((Number) JsonPath.read(json, "$.id")).longValue();
    }

    private static double number(String json, String path) {
        return ((Number) JsonPath.read(json, path)).doubleValue();
    }

    /** The names of the devices the user sees (their counters move with other tests' arrays). */
    private List<String> deviceNames() throws Exception {
        String body = mvc.perform(get("/api/v1/devices").with(admin())).andReturn().getResponse().getContentAsString();
        return JsonPath.read(body, "$[*].name");
    }

    /**
     * Every seed, or those listed in {@code -Dblockwork.experiment.seeds}: the PostgreSQL pass runs
     * one, as the experiment's row is stored the same whichever seed made it, and the five take 40 s.
     */
    static Stream<String> seeds() {
        return Arrays.stream(System.getProperty("blockwork.experiment.seeds", "000,001,002,003,004").split(","));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void eachSeedsExperimentReportsBothStrategiesAndTheirRatio(String seed) throws Exception {
        List<String> devicesBefore = deviceNames();
        String started = start(seed);
        assertThat(JsonPath.<String>read(started, "$.state")).isEqualTo("running");
        // its scratch devices never show among the user's
        assertThat(deviceNames()).isEqualTo(devicesBefore);
        String done = finished(id(started));
        assertThat(JsonPath.<String>read(done, "$.state")).isEqualTo("finished");
        assertThat(JsonPath.<String>read(done, "$.result.seed")).isEqualTo(seed);
        assertThat(number(done, "$.result.before.value")).isPositive();
        assertThat(number(done, "$.result.after.value")).isPositive();
        assertThat(JsonPath.<List<Object>>read(done, "$.result.after.samples")).isNotEmpty();
        assertThat(number(done, "$.result.before.run.errors")).isZero();
        assertThat(number(done, "$.result.after.run.errors")).isZero();
        boolean higherIsBetter = JsonPath.read(done, "$.result.higherIsBetter");
        double before = number(done, "$.result.before.value");
        double after = number(done, "$.result.after.value");
        assertThat(number(done, "$.result.ratio")).isCloseTo(higherIsBetter ? after / before : before / after,
                org.assertj.core.api.Assertions.within(1e-6));
        assertThat(deviceNames()).isEqualTo(devicesBefore);
    }

    @Test
    void oneAtATimeAndBadRequestsNameTheField() throws Exception {
        mvc.perform(get("/api/v1/experiments/seeds").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$[*].seed").value(org.hamcrest.Matchers.contains("000", "001", "002", "003", "004")))
                .andExpect(jsonPath("$[3].strategies").value(org.hamcrest.Matchers.contains("timer", "explicit")));
        mvc.perform(post("/api/v1/experiments").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"seed\":\"005\"}")).andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("seed"));
        mvc.perform(post("/api/v1/experiments").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"seed\":\"000\",\"seconds\":0}")).andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("seconds"));
        mvc.perform(post("/api/v1/experiments").with(viewer()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"seed\":\"000\"}")).andExpect(problem(403, "forbidden"));

        long first = id(mvc.perform(post("/api/v1/experiments").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"seed\":\"003\",\"seconds\":30}")).andExpect(status().isCreated())
                .andReturn().getResponse().getContentAsString());
        mvc.perform(post("/api/v1/experiments").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"seed\":\"000\"}"))
                .andExpect(problem(409, "conflict")).andExpect(jsonPath("$.running").value(first));
        String cancelled = mvc.perform(delete("/api/v1/experiments/{id}", first).with(admin()))
                .andExpect(status().isOk()).andReturn().getResponse().getContentAsString();
        assertThat(JsonPath.<String>read(cancelled, "$.state")).isEqualTo("cancelled");
        mvc.perform(delete("/api/v1/experiments/{id}", first).with(admin())).andExpect(status().isNoContent());
    }
}
