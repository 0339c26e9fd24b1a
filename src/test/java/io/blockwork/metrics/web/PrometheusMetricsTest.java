package io.blockwork.metrics.web;

import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.DmRequests.createDm;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.viewer;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/** Issue 15, acceptance 1: a scrape after known I/O shows exactly that I/O; scraping needs credentials. */
@AppTest
class PrometheusMetricsTest {

    @Autowired
    MockMvc mvc;

    private String scrape() throws Exception {
        return mvc.perform(get("/actuator/prometheus").with(viewer()))
                .andExpect(status().isOk())
                .andReturn().getResponse().getContentAsString();
    }

    /** The value of the sample {@code name{labels}}, labels as they are printed: by name ({@code device="x",kind="disk"}). */
    private static double value(String exposition, String name, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name + "{" + labels + "}") + " (\\S+)$").matcher(exposition);
        assertThat(m.find()).as("%s{%s} in the scrape", name, labels).isTrue();
        return Double.parseDouble(m.group(1));
    }

    @Test
    void anonymousScrapesAreRefusedAndViewerOrAdminMayScrape() throws Exception {
        mvc.perform(get("/actuator/prometheus")).andExpect(problem(401, "unauthenticated"));
        mvc.perform(get("/actuator/prometheus").with(admin())).andExpect(status().isOk());
        assertThat(scrape()).contains("# TYPE blockwork_device_reads_total counter",
                "# TYPE blockwork_device_io_duration_seconds histogram", "jvm_memory_used_bytes");
    }

    @Test
    void countersAndHistogramsShowTheRequestsMade() throws Exception {
        mvc.perform(memoryDisk("prom-d1", "8MiB")).andExpect(status().isCreated());
        byte[] block = new byte[4096];
        for (int i = 0; i < 3; i++) {
            mvc.perform(writeData("prom-d1", i * 4096L, block)).andExpect(status().isNoContent());
        }
        for (int i = 0; i < 2; i++) {
            mvc.perform(readData("prom-d1", 0, 8192)).andExpect(status().isOk());
        }
        mvc.perform(post("/api/v1/devices/{name}/flush", "prom-d1").with(admin())).andExpect(status().isNoContent());

        String s = scrape();
        String disk = "device=\"prom-d1\",kind=\"disk\"";
        assertThat(value(s, "blockwork_device_writes_total", disk)).isEqualTo(3);
        assertThat(value(s, "blockwork_device_reads_total", disk)).isEqualTo(2);
        assertThat(value(s, "blockwork_device_flushes_total", disk)).isEqualTo(1);
        assertThat(value(s, "blockwork_device_written_bytes_total", disk)).isEqualTo(3 * 4096);
        assertThat(value(s, "blockwork_device_read_bytes_total", disk)).isEqualTo(2 * 8192);
        assertThat(value(s, "blockwork_device_errors_total", disk)).isZero();
        assertThat(value(s, "blockwork_device_in_flight_requests", disk)).isZero();
        // each histogram counts exactly the requests of its operation, every one in some bucket
        assertThat(value(s, "blockwork_device_io_duration_seconds_count", disk + ",op=\"write\"")).isEqualTo(3);
        assertThat(value(s, "blockwork_device_io_duration_seconds_bucket", disk + ",op=\"write\",le=\"+Inf\"")).isEqualTo(3);
        assertThat(value(s, "blockwork_device_io_duration_seconds_count", disk + ",op=\"read\"")).isEqualTo(2);
        assertThat(value(s, "blockwork_device_io_duration_seconds_count", disk + ",op=\"flush\"")).isEqualTo(1);
        assertThat(value(s, "blockwork_device_io_duration_seconds_sum", disk + ",op=\"write\"")).isPositive();
        assertThat(value(s, "blockwork_device_health", disk + ",state=\"ok\"")).isEqualTo(1);
        assertThat(value(s, "blockwork_disk_media_flushes_total", "disk=\"prom-d1\"")).isZero(); // writethrough
    }

    @Test
    void anArraysStateAndStrategiesAreLabelled() throws Exception {
        for (String d : new String[] {"prom-a1", "prom-a2"}) {
            mvc.perform(memoryDisk(d, "8MiB")).andExpect(status().isCreated());
        }
        mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"name\":\"prom-md\",\"level\":\"raid1\",\"members\":[\"prom-a1\",\"prom-a2\"],"
                        + "\"assumeClean\":true,\"strategies\":{\"flush\":\"serial\"}}"))
                .andExpect(status().isCreated());
        mvc.perform(post("/api/v1/arrays/prom-md/members/prom-a2/fail").with(admin())).andExpect(status().isOk());
        String s = scrape();
        assertThat(value(s, "blockwork_array_info", "array=\"prom-md\",barrier_strategy=\"optimistic\","
                + "flush_strategy=\"serial\",level=\"raid1\"")).isEqualTo(1);
        assertThat(value(s, "blockwork_array_degraded_devices", "array=\"prom-md\"")).isEqualTo(1);
        assertThat(value(s, "blockwork_array_failed_devices", "array=\"prom-md\"")).isEqualTo(1);
        assertThat(value(s, "blockwork_array_state", "array=\"prom-md\",state=\"degraded\"")).isEqualTo(1);
        assertThat(value(s, "blockwork_device_health", "device=\"prom-md\",kind=\"array\",state=\"degraded\"")).isEqualTo(1);
    }

    @Test
    void parityArraysWithTheirJournalAndLogWritesDevicesHaveTheirOwnFigures() throws Exception {
        for (String d : new String[] {"prom-r0", "prom-r1", "prom-r2", "prom-j", "prom-lwd", "prom-lwl"}) {
            mvc.perform(memoryDisk(d, "8MiB")).andExpect(status().isCreated());
        }
        mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"name\":\"prom-r5\",\"level\":\"raid5\",\"members\":[\"prom-r0\",\"prom-r1\",\"prom-r2\"],"
                        + "\"assumeClean\":true,\"journal\":\"prom-j\"}"))
                .andExpect(status().isCreated());
        mvc.perform(createDm("prom-lw", "0 16384 log-writes prom-lwd prom-lwl")).andExpect(status().isCreated());
        mvc.perform(writeData("prom-r5", 0, new byte[4096])).andExpect(status().isNoContent());
        mvc.perform(writeData("prom-lw", 0, new byte[4096])).andExpect(status().isNoContent());
        mvc.perform(post("/api/v1/devices/{name}/flush", "prom-lw").with(admin())).andExpect(status().isNoContent());

        String s = scrape();
        assertThat(value(s, "blockwork_array_info", "array=\"prom-r5\",barrier_strategy=\"optimistic\","
                + "flush_strategy=\"fanout\",level=\"raid5\"")).isEqualTo(1);
        assertThat(value(s, "blockwork_device_writes_total", "device=\"prom-r5\",kind=\"array\"")).isEqualTo(1);
        // one 4 KiB write into a 3-member stripe: read-modify-write or reconstruct-write, not a full stripe
        double rmw = value(s, "blockwork_array_stripe_writes_total", "array=\"prom-r5\",path=\"rmw\"");
        double rcw = value(s, "blockwork_array_stripe_writes_total", "array=\"prom-r5\",path=\"rcw\"");
        assertThat(rmw + rcw).isPositive();
        assertThat(value(s, "blockwork_array_stripe_writes_total", "array=\"prom-r5\",path=\"full_stripe\"")).isZero();
        assertThat(value(s, "blockwork_array_stripe_cache_size", "array=\"prom-r5\"")).isPositive();
        assertThat(value(s, "blockwork_array_journal_records_total", "array=\"prom-r5\",journal=\"prom-j\"")).isPositive();
        assertThat(value(s, "blockwork_array_journal_failed", "array=\"prom-r5\",journal=\"prom-j\"")).isZero();
        assertThat(value(s, "blockwork_array_journal_pinned", "array=\"prom-r5\",journal=\"prom-j\"")).isZero();
        mvc.perform(get("/api/v1/arrays/{name}", "prom-r5").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$.journal.device").value("prom-j")).andExpect(jsonPath("$.journal.records").value(1))
                .andExpect(jsonPath("$.journal.failed").value(false)).andExpect(jsonPath("$.journal.pinned").value(false));

        assertThat(value(s, "blockwork_dm_targets", "device=\"prom-lw\",target=\"log-writes\"")).isEqualTo(1);
        assertThat(value(s, "blockwork_device_writes_total", "device=\"prom-lw\",kind=\"dm\"")).isEqualTo(1);
        assertThat(value(s, "blockwork_dm_log_writes_entries_total", "device=\"prom-lw\",log_device=\"prom-lwl\""))
                .as("the write, logged once the flush completed").isGreaterThanOrEqualTo(1);
    }
}
