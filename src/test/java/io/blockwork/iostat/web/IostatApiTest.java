package io.blockwork.iostat.web;

import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.viewer;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.support.AppTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/** Per-second I/O history over REST: a device's samples, and the latest second of every device with its place in the stack. */
@AppTest
class IostatApiTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Autowired
    MockMvc mvc;

    private String json(String path, Object... vars) throws Exception {
        return mvc.perform(get(path, vars).with(viewer())).andExpect(status().isOk()).andReturn().getResponse()
                .getContentAsString();
    }

    @Test
    void aDevicesHistoryShowsTheSecondsItWasBusy() throws Exception {
        mvc.perform(memoryDisk("io-d1", "16MiB")).andExpect(status().isCreated());
        // a paced workload: writes in every second for a few seconds
        mvc.perform(post("/api/v1/workloads").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"io-d1\",\"rw\":\"randwrite\",\"rateIops\":500,\"runtime\":\"4s\"}"))
                .andExpect(status().isCreated());
        await().atMost(WAIT).until(() -> {
            List<Double> writes = JsonPath.read(json("/api/v1/devices/{name}/iostat?seconds=10", "io-d1"),
                    "$.samples[*].writeIops");
            return writes.stream().filter(w -> w > 0).count() >= 2;
        });
        String h = json("/api/v1/devices/{name}/iostat?seconds=10", "io-d1");
        assertThat(JsonPath.<String>read(h, "$.kind")).isEqualTo("disk");
        assertThat(JsonPath.<Integer>read(h, "$.historySeconds")).isEqualTo(600);
        List<Map<String, Object>> samples = JsonPath.read(h, "$.samples");
        assertThat(samples).hasSizeBetween(2, 10);
        Map<String, Object> busy = samples.stream().filter(s -> ((Number) s.get("writeIops")).doubleValue() > 0)
                .findFirst().orElseThrow();
        assertThat(((Number) busy.get("writeBytesPerSecond")).doubleValue()).isPositive();
        assertThat(((Number) busy.get("writeP99Us")).doubleValue()).isPositive();
        List<Number> times = JsonPath.read(h, "$.samples[*].time");
        assertThat(times).extracting(Number::longValue).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void theTopViewSaysWhichDevicesCountEachRequestOnce() throws Exception {
        for (String d : new String[] {"io-a1", "io-a2"}) {
            mvc.perform(memoryDisk(d, "8MiB")).andExpect(status().isCreated());
        }
        mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"name\":\"io-md\",\"level\":\"raid1\",\"members\":[\"io-a1\",\"io-a2\"],\"assumeClean\":true}"))
                .andExpect(status().isCreated());
        mvc.perform(writeData("io-md", 0, new byte[4096])).andExpect(status().isNoContent());
        await().atMost(WAIT).until(() -> !JsonPath.<List<Object>>read(json("/api/v1/iostat"),
                "$[?(@.device == 'io-md')].samples[0]").isEmpty());
        String top = json("/api/v1/iostat");
        assertThat(JsonPath.<List<Boolean>>read(top, "$[?(@.device == 'io-md')].top")).containsExactly(true);
        assertThat(JsonPath.<List<Boolean>>read(top, "$[?(@.device == 'io-a1')].top")).containsExactly(false);
        assertThat(JsonPath.<List<List<String>>>read(top, "$[?(@.device == 'io-a1')].holders"))
                .containsExactly(List.of("array io-md"));
        assertThat(JsonPath.<List<Object>>read(top, "$[?(@.kind == 'hidden')]")).isEmpty();
    }

    @Test
    void badRequestsAreRefused() throws Exception {
        mvc.perform(memoryDisk("io-bad", "1MiB")).andExpect(status().isCreated());
        mvc.perform(get("/api/v1/devices/{name}/iostat?seconds=0", "io-bad").with(admin()))
                .andExpect(problem(400, "validation-failed"));
        mvc.perform(get("/api/v1/devices/{name}/iostat?seconds=601", "io-bad").with(admin()))
                .andExpect(problem(400, "validation-failed"));
        mvc.perform(get("/api/v1/devices/{name}/iostat", "io-nowhere").with(admin()))
                .andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/iostat")).andExpect(problem(401, "unauthenticated"));
    }
}
