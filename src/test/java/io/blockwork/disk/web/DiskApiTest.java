package io.blockwork.disk.web;

import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.createDisk;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.writeData;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.patch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Claim;
import io.blockwork.shared.device.Holder;
import io.blockwork.support.AppTest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

@AppTest
class DiskApiTest {

    @Autowired
    MockMvc mvc;

    @Autowired
    DeviceRegistry registry;

    @Test
    void createsAMemoryDiskWithDefaults() throws Exception {
        mvc.perform(memoryDisk("da-defaults", "64MiB"))
                .andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/v1/disks/da-defaults"))
                .andExpect(jsonPath("$.name").value("da-defaults"))
                .andExpect(jsonPath("$.type").value("memory"))
                .andExpect(jsonPath("$.sizeBytes").value(64L << 20))
                .andExpect(jsonPath("$.logicalBlockSize").value(512))
                .andExpect(jsonPath("$.cache").value("writethrough"))
                .andExpect(jsonPath("$.strategies.flush").value("merged"))
                .andExpect(jsonPath("$.keepsData").value(false))
                .andExpect(jsonPath("$.allocatedBytes").value(0))
                .andExpect(jsonPath("$.state.actual").value("active"));
        mvc.perform(get("/api/v1/disks/da-defaults").with(admin()))
                .andExpect(status().isOk()).andExpect(jsonPath("$.stats.mediaFlushes").value(0));
        mvc.perform(get("/api/v1/devices/da-defaults").with(admin()))
                .andExpect(jsonPath("$.kind").value("disk"))
                .andExpect(jsonPath("$.sizeBytes").value(64L << 20))
                .andExpect(jsonPath("$.stats.reads").value(0));
    }

    @Test
    void takesEveryConfigurableMemberAndSizeAsBytes() throws Exception {
        mvc.perform(createDisk("""
                        {"name":"da-full","type":"file","size":1048576,"logicalBlockSize":4096,"cache":"writeback",
                         "latency":{"read":"80us","write":"80us","flush":"1ms","jitter":"20us"},
                         "queueDepth":4,"strategies":{"flush":"off"}}"""))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.sizeBytes").value(1048576))
                .andExpect(jsonPath("$.logicalBlockSize").value(4096))
                .andExpect(jsonPath("$.cache").value("writeback"))
                .andExpect(jsonPath("$.latency.read").value("80us"))
                .andExpect(jsonPath("$.latency.flush").value("1ms"))
                .andExpect(jsonPath("$.latency.jitter").value("20us"))
                .andExpect(jsonPath("$.queueDepth").value(4))
                .andExpect(jsonPath("$.strategies.flush").value("off"))
                .andExpect(jsonPath("$.keepsData").value(true));
        mvc.perform(delete("/api/v1/disks/da-full").with(admin())).andExpect(status().isNoContent());
    }

    @Test
    void listsDisksByName() throws Exception {
        mvc.perform(memoryDisk("da-list-b", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createDisk("{\"name\":\"da-list-a\",\"type\":\"null\",\"size\":\"1G\"}"))
                .andExpect(status().isCreated());
        mvc.perform(get("/api/v1/disks").with(admin()))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$[?(@.name == 'da-list-a')].type").value("null"))
                .andExpect(jsonPath("$[?(@.name == 'da-list-b')].sizeBytes").value(1 << 20));
    }

    @Test
    void patchChangesLatencyQueueDepthAndFaults() throws Exception {
        mvc.perform(memoryDisk("da-patch", "1MiB")).andExpect(status().isCreated());
        mvc.perform(patch("/api/v1/disks/da-patch").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"latency\":{\"flush\":\"2ms\"},\"queueDepth\":8,\"faults\":{\"failWrites\":true}}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.latency.flush").value("2ms"))
                .andExpect(jsonPath("$.latency.read").value("0ns"))
                .andExpect(jsonPath("$.queueDepth").value(8))
                .andExpect(jsonPath("$.faults.failWrites").value(true))
                .andExpect(jsonPath("$.faults.failReads").value(false));
        mvc.perform(writeData("da-patch", 0, new byte[512])).andExpect(problem(500, "io-error"));
        mvc.perform(get("/api/v1/disks/da-patch").with(admin()))
                .andExpect(jsonPath("$.stats.errors").value(1));
    }

    /**
     * A latency is sampled when a request is sent and kept until it completes: a request sent
     * under "100000s" held every management change that waited for it for a day, whatever the
     * latency was patched to next (the REST fuzzer's timeouts). At most 1 s, on create and patch.
     */
    @Test
    void latencyAboveOneSecondIsRefusedAndChangesNothing() throws Exception {
        mvc.perform(createDisk("{\"name\":\"da-slow\",\"type\":\"memory\",\"size\":\"1MiB\","
                        + "\"latency\":{\"read\":\"100000s\"}}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("latency.read"));
        mvc.perform(get("/api/v1/disks/da-slow").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(memoryDisk("da-slow", "1MiB")).andExpect(status().isCreated());
        mvc.perform(patch("/api/v1/disks/da-slow").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"latency\":{\"write\":\"1s\",\"jitter\":\"1000001us\"}}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("latency.jitter"));
        mvc.perform(get("/api/v1/disks/da-slow").with(admin()))
                .andExpect(jsonPath("$.latency.write").value("0ns")).andExpect(jsonPath("$.latency.jitter").value("0ns"));
        mvc.perform(patch("/api/v1/disks/da-slow").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"latency\":{\"write\":\"1s\",\"jitter\":\"1s\"}}"))
                .andExpect(status().isOk()).andExpect(jsonPath("$.latency.write").value("1s"));
    }

    @Test
    void deleteRemovesTheDiskAndItsName() throws Exception {
        mvc.perform(memoryDisk("da-delete", "1MiB")).andExpect(status().isCreated());
        mvc.perform(delete("/api/v1/disks/da-delete").with(admin())).andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/disks/da-delete").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/da-delete").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(memoryDisk("da-delete", "1MiB")).andExpect(status().isCreated());
    }

    @Test
    void deleteIsRefusedWhileTheDiskIsHeld() throws Exception {
        mvc.perform(memoryDisk("da-held", "1MiB")).andExpect(status().isCreated());
        Holder array = new Holder("array", "md-test");
        registry.claim("da-held", array, Claim.OWNER_ALLOWING_RAW);
        mvc.perform(delete("/api/v1/disks/da-held").with(admin()))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders[0]").value("array md-test"));
        mvc.perform(get("/api/v1/devices/da-held").with(admin()))
                .andExpect(jsonPath("$.holders[0]").value("array md-test"));
        registry.release("da-held", array);
        mvc.perform(delete("/api/v1/disks/da-held").with(admin())).andExpect(status().isNoContent());
    }

    @Test
    void discardFreesMemory() throws Exception {
        mvc.perform(memoryDisk("da-discard", "16MiB")).andExpect(status().isCreated());
        byte[] data = new byte[1 << 20];
        java.util.Arrays.fill(data, (byte) 0x5a);
        mvc.perform(writeData("da-discard", 0, data)).andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/disks/da-discard").with(admin()))
                .andExpect(jsonPath("$.allocatedBytes").value(1 << 20));
        mvc.perform(post("/api/v1/devices/da-discard/discard").with(admin())
                        .param("offset", "0").param("length", Integer.toString(1 << 20)))
                .andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/disks/da-discard").with(admin()))
                .andExpect(jsonPath("$.allocatedBytes").value(0))
                .andExpect(jsonPath("$.stats.discards").value(1));
    }

    @Test
    void powerCutIsRefusedOnAWritethroughDisk() throws Exception {
        mvc.perform(memoryDisk("da-nocut", "1MiB")).andExpect(status().isCreated());
        mvc.perform(post("/api/v1/disks/da-nocut/power-cut").with(admin()))
                .andExpect(problem(409, "not-supported"))
                .andExpect(jsonPath("$.detail").value(containsString("writeback")));
    }

    @Test
    void diskEndpointsDoNotAnswerForOtherNames() throws Exception {
        mvc.perform(get("/api/v1/disks/da-nobody").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(delete("/api/v1/disks/da-nobody").with(admin())).andExpect(problem(404, "not-found"));
    }
}
