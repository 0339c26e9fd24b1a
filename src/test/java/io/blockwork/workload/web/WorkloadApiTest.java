package io.blockwork.workload.web;

import static io.blockwork.support.PoolRequests.smallPool;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.patch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.support.AppTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Issue 15, acceptance 3: workloads over REST. A verified random-write run on a memory disk is
 * clean; a member failing mid-run shows as I/O errors on raid0 and none on raid1; writing to a
 * volume needs "destructive": true; a cancel stops a workload within a second; several run at
 * once and stay as history.
 */
@AppTest
class WorkloadApiTest {

    private static final Duration WAIT = Duration.ofSeconds(120);

    @Autowired
    MockMvc mvc;

    private long start(String json) throws Exception {
        String body = mvc.perform(post("/api/v1/workloads").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content(json))
                .andExpect(status().isCreated())
                .andExpect(header().string("Location", org.hamcrest.Matchers.startsWith("/api/v1/workloads/")))
                .andReturn().getResponse().getContentAsString();
        return ((Number) JsonPath.read(body, "$.id")).longValue();
    }

    private String show(long id) throws Exception {
        return mvc.perform(get("/api/v1/workloads/{id}", id).with(viewer())).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsString();
    }

    private String ended(long id) {
        String[] last = new String[1];
        await().atMost(WAIT).until(() -> {
            last[0] = show(id);
            return !"running".equals(JsonPath.read(last[0], "$.state"));
        });
        return last[0];
    }

    private static <T> T at(String json, String path) {
        return JsonPath.read(json, path);
    }

    private static double number(String json, String path) {
        return ((Number) JsonPath.read(json, path)).doubleValue();
    }

    private void memory(String... names) throws Exception {
        for (String n : names) {
            mvc.perform(memoryDisk(n, "32MiB")).andExpect(status().isCreated());
        }
    }

    @Test
    void aVerifiedRandomWriteRunOnAMemoryDiskIsCleanAndReportedLikeFio() throws Exception {
        memory("wl-d1");
        long id = start("{\"device\":\"wl-d1\",\"rw\":\"randwrite\",\"bs\":\"4KiB\",\"iodepth\":8,\"numjobs\":2,"
                + "\"io\":\"2MiB\",\"verify\":\"crc32c\"}");
        String done = ended(id);
        assertThat(at(done, "$.state").toString()).isEqualTo("finished");
        assertThat(number(done, "$.result.write.iops")).isPositive();
        assertThat(number(done, "$.result.write.ios")).isEqualTo(2 * 512);
        assertThat(number(done, "$.result.write.latency.p99Nanos")).isPositive();
        assertThat(number(done, "$.result.errors")).isZero();
        assertThat(number(done, "$.result.verify.blocksChecked")).isPositive();
        assertThat(number(done, "$.result.verify.mismatches")).isZero();
        assertThat(at(done, "$.spec.bs").toString()).isEqualTo("4096");
        assertThat(at(done, "$.endedAt").toString()).isNotBlank();
    }

    @Test
    void aMemberFailedMidRunIsReportedAsErrorsOnRaid0AndNotAtAllOnRaid1() throws Exception {
        memory("wl-r0a", "wl-r0b", "wl-r1a", "wl-r1b");
        for (String[] a : new String[][] {{"wl-raid0", "raid0", "wl-r0a", "wl-r0b"}, {"wl-raid1", "raid1", "wl-r1a", "wl-r1b"}}) {
            mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                            .content("{\"name\":\"" + a[0] + "\",\"level\":\"" + a[1] + "\",\"members\":[\"" + a[2]
                                    + "\",\"" + a[3] + "\"],\"assumeClean\":true}"))
                    .andExpect(status().isCreated());
        }
        // paced, so each runs for a few seconds and the fault lands in the middle
        String spec = ",\"rw\":\"randwrite\",\"bs\":\"4KiB\",\"iodepth\":4,\"runtime\":\"30s\",\"rateIops\":1000,"
                + "\"size\":\"8MiB\",\"verify\":\"crc32c\"}";
        long r0 = start("{\"device\":\"wl-raid0\"" + spec);
        long r1 = start("{\"device\":\"wl-raid1\"" + spec);
        await().atMost(WAIT).until(() -> number(show(r0), "$.progress.writes") > 100 && number(show(r1), "$.progress.writes") > 100);
        for (String member : new String[] {"wl-r0b", "wl-r1b"}) {
            mvc.perform(patch("/api/v1/disks/{name}", member).with(admin()).contentType(MediaType.APPLICATION_JSON)
                    .content("{\"faults\":{\"failWrites\":true,\"failReads\":true}}")).andExpect(status().isOk());
        }
        String raid0 = ended(r0);
        assertThat(number(raid0, "$.result.errors")).as("raid0 has no other copy: the job stops at its first error")
                .isPositive();
        assertThat(at(raid0, "$.result.firstError").toString()).contains("IO_ERROR");

        // raid1 carries on on its other member until the runtime: cut it short
        await().atMost(WAIT).until(() -> mvc.perform(get("/api/v1/arrays/wl-raid1").with(admin()))
                .andReturn().getResponse().getContentAsString().contains("\"faulty\""));
        mvc.perform(delete("/api/v1/workloads/{id}", r1).with(admin())).andExpect(status().isOk());
        String raid1 = show(r1);
        assertThat(number(raid1, "$.result.errors")).as("raid1 serves every write from the other member").isZero();
        assertThat(number(raid1, "$.result.write.ios")).isPositive();
    }

    @Test
    void aVerifiedRunOnRaid1ThatLosesAMemberFindsEveryBlockIntact() throws Exception {
        memory("wl-v1a", "wl-v1b");
        mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"name\":\"wl-v1\",\"level\":\"raid1\",\"members\":[\"wl-v1a\",\"wl-v1b\"],"
                                + "\"assumeClean\":true}"))
                .andExpect(status().isCreated());
        long id = start("{\"device\":\"wl-v1\",\"rw\":\"randwrite\",\"iodepth\":4,\"io\":\"4MiB\",\"rateIops\":400,"
                + "\"size\":\"4MiB\",\"verify\":\"crc32c\"}");
        await().atMost(WAIT).until(() -> number(show(id), "$.progress.writes") > 100);
        mvc.perform(patch("/api/v1/disks/{name}", "wl-v1b").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"faults\":{\"failWrites\":true,\"failReads\":true}}")).andExpect(status().isOk());
        String done = ended(id);
        assertThat(at(done, "$.state").toString()).isEqualTo("finished");
        assertThat(number(done, "$.result.errors")).isZero();
        assertThat(number(done, "$.result.verify.blocksChecked")).isPositive();
        assertThat(number(done, "$.result.verify.mismatches")).isZero();
    }

    @Test
    void writingToAVolumeNeedsDestructiveTrueReadingNeverDoes() throws Exception {
        smallPool(mvc, "wl-pool");
        mvc.perform(post("/api/v1/workloads").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"device\":\"wl-pool-v\",\"rw\":\"randwrite\",\"io\":\"64KiB\"}"))
                .andExpect(problem(409, "destructive-not-confirmed"))
                .andExpect(jsonPath("$.field").value("destructive"))
                .andExpect(jsonPath("$.reason").value(org.hamcrest.Matchers.containsString("volume")));
        // the pool's device has a holder (the pool): writing to it is destructive too
        mvc.perform(post("/api/v1/workloads").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"device\":\"wl-pool-pv\",\"rw\":\"write\",\"io\":\"64KiB\"}"))
                .andExpect(problem(409, "destructive-not-confirmed"))
                .andExpect(jsonPath("$.reason").value(org.hamcrest.Matchers.containsString("pool wl-pool")));
        long read = start("{\"device\":\"wl-pool-v\",\"rw\":\"randread\",\"io\":\"64KiB\"}");
        assertThat(at(ended(read), "$.state").toString()).isEqualTo("finished");
        long write = start("{\"device\":\"wl-pool-v\",\"rw\":\"randwrite\",\"io\":\"64KiB\",\"destructive\":true}");
        assertThat(at(ended(write), "$.state").toString()).isEqualTo("finished");
    }

    @Test
    void aConfirmedDestructiveWorkloadStillMayNotWriteWhatAPoolOwns() throws Exception {
        smallPool(mvc, "wl-own");
        // issue 13: a pool's device belongs to the pool; confirming is asking for raw access, which a pool never allows
        mvc.perform(post("/api/v1/workloads").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"device\":\"wl-own-pv\",\"rw\":\"write\",\"io\":\"64KiB\",\"destructive\":true}"))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders[0]").value("pool wl-own"));
        mvc.perform(get("/api/v1/workloads").with(admin()))
                .andExpect(jsonPath("$[?(@.device == 'wl-own-pv')]").isEmpty());
    }

    @Test
    void badSpecsAreRefusedNamingTheField() throws Exception {
        memory("wl-bad");
        String[][] cases = {
                {"{\"device\":\"wl-bad\",\"rw\":\"sideways\"}", "rw"},
                {"{\"device\":\"wl-bad\",\"rw\":\"read\",\"bs\":1000}", "bs"},
                {"{\"device\":\"wl-bad\",\"rw\":\"read\",\"iodepth\":0}", "iodepth"},
                {"{\"device\":\"wl-bad\",\"rw\":\"read\",\"rwmixread\":101}", "rwmixread"},
                {"{\"device\":\"wl-bad\",\"rw\":\"read\",\"verify\":\"md5\"}", "verify"},
                {"{\"device\":\"wl-bad\",\"rw\":\"read\",\"offset\":\"64MiB\"}", "offset"},
                {"{\"device\":\"wl-bad\",\"rw\":\"read\",\"bs\":\"16MiB\",\"iodepth\":64}", "iodepth"},
                {"{\"rw\":\"read\"}", "device"},
        };
        for (String[] c : cases) {
            mvc.perform(post("/api/v1/workloads").with(admin()).contentType(MediaType.APPLICATION_JSON).content(c[0]))
                    .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value(c[1]));
        }
        mvc.perform(post("/api/v1/workloads").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"device\":\"wl-nowhere\",\"rw\":\"read\"}"))
                .andExpect(problem(404, "not-found"));
        mvc.perform(post("/api/v1/workloads").with(viewer()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"device\":\"wl-bad\",\"rw\":\"read\"}"))
                .andExpect(problem(403, "forbidden"));
    }

    @Test
    void aCancelStopsAWorkloadWithinOneSecond() throws Exception {
        memory("wl-cancel");
        long id = start("{\"device\":\"wl-cancel\",\"rw\":\"randrw\",\"iodepth\":16,\"numjobs\":2,\"runtime\":\"3600s\","
                + "\"verify\":\"crc32c\",\"size\":\"8MiB\",\"offsetIncrement\":\"8MiB\"}");
        await().atMost(WAIT).until(() -> number(show(id), "$.progress.writes") > 0);
        Instant asked = Instant.now();
        String cancelled = mvc.perform(delete("/api/v1/workloads/{id}", id).with(admin())).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsString();
        // The answer comes once the workload has stopped and its end is durably recorded; the promise
        // is about the stop, the moment its jobs ended (endedAt), not about the commit after it.
        assertThat(at(cancelled, "$.state").toString()).as("the cancel came back with the workload stopped")
                .isEqualTo("cancelled");
        Instant ended = Instant.parse(at(cancelled, "$.endedAt").toString());
        assertThat(Duration.between(asked, ended)).as("its jobs ended within a second of the cancel")
                .isLessThan(Duration.ofSeconds(1));
        assertThat(at(cancelled, "$.result.cancelled").toString()).isEqualTo("true");
        assertThat(at(cancelled, "$.error").toString()).isEqualTo("cancelled by request");
        // an ended workload is forgotten on a second DELETE
        mvc.perform(delete("/api/v1/workloads/{id}", id).with(admin())).andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/workloads/{id}", id).with(admin())).andExpect(problem(404, "not-found"));
    }

    @Test
    void severalRunAtOnceOnOneDeviceAndAnotherAndStayAsHistory() throws Exception {
        memory("wl-m1", "wl-m2");
        String slow = ",\"rw\":\"randread\",\"rateIops\":200,\"io\":\"2MiB\"}";
        long a = start("{\"device\":\"wl-m1\"" + slow);
        long b = start("{\"device\":\"wl-m1\"" + slow);
        long c = start("{\"device\":\"wl-m2\"" + slow);
        for (long id : new long[] {a, b, c}) {
            assertThat(at(show(id), "$.state").toString()).as("all three run at once").isEqualTo("running");
        }
        for (long id : new long[] {a, b, c}) {
            assertThat(at(ended(id), "$.state").toString()).isEqualTo("finished");
        }
        String list = mvc.perform(get("/api/v1/workloads").param("limit", "3").with(viewer())).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsString();
        List<Number> ids = JsonPath.read(list, "$[*].id");
        assertThat(ids).extracting(Number::longValue).containsExactly(c, b, a);
        mvc.perform(get("/api/v1/workloads").param("limit", "0").with(viewer())).andExpect(problem(400, "validation-failed"));
    }
}
