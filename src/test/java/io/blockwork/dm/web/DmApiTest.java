package io.blockwork.dm.web;

import static io.blockwork.support.DmRequests.DEVICES;
import static io.blockwork.support.DmRequests.createDm;
import static io.blockwork.support.DmRequests.dmDelete;
import static io.blockwork.support.DmRequests.dmGet;
import static io.blockwork.support.DmRequests.dmPost;
import static io.blockwork.support.DmRequests.dmText;
import static io.blockwork.support.DmRequests.loadJson;
import static io.blockwork.support.DmRequests.loadText;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.createDisk;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.viewer;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Claim;
import io.blockwork.shared.device.Holder;
import io.blockwork.support.AppTest;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/** The device-mapper API, operation by operation, and mapped devices as block devices. */
@AppTest
class DmApiTest {

    @Autowired
    MockMvc mvc;

    @Autowired
    DeviceRegistry registry;

    private void disk(String name, String size) throws Exception {
        mvc.perform(memoryDisk(name, size)).andExpect(status().isCreated());
    }

    private String text(String name, String what) throws Exception {
        return mvc.perform(dmText(name, what)).andExpect(status().isOk())
                .andExpect(content().contentTypeCompatibleWith(MediaType.TEXT_PLAIN))
                .andReturn().getResponse().getContentAsString();
    }

    @Test
    void createsALinearDeviceFromTableText() throws Exception {
        disk("dma-c-d1", "1MiB");
        mvc.perform(createDm("{\"name\":\"dma-c\",\"uuid\":\"DMA-C-1\",\"table\":\"# a comment\\n0 1024 linear dma-c-d1 512\\n\"}"))
                .andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/v1/dm/devices/dma-c"))
                .andExpect(jsonPath("$.name").value("dma-c"))
                .andExpect(jsonPath("$.uuid").value("DMA-C-1"))
                .andExpect(jsonPath("$.table").value("0 1024 linear dma-c-d1 512\n"))
                .andExpect(jsonPath("$.inactiveTable").doesNotExist())
                .andExpect(jsonPath("$.info.state").value("active"))
                .andExpect(jsonPath("$.info.openCount").value(0))
                .andExpect(jsonPath("$.info.eventNumber").value(0))
                .andExpect(jsonPath("$.info.liveTable").value(true))
                .andExpect(jsonPath("$.info.inactiveTable").value(false))
                .andExpect(jsonPath("$.info.targetCount").value(1))
                .andExpect(jsonPath("$.info.sizeBytes").value(1024 * 512))
                .andExpect(jsonPath("$.status[0].target").value("linear"))
                .andExpect(jsonPath("$.status[0].length").value(1024))
                .andExpect(jsonPath("$.strategies.flush").value("per-device"))
                .andExpect(jsonPath("$.strategies.batchDispatch").value("explicit"))
                .andExpect(jsonPath("$.strategies.snapshotLocking").value("fine"))
                .andExpect(jsonPath("$.state.actual").value("active"));
        mvc.perform(get("/api/v1/devices/dma-c").with(admin()))
                .andExpect(jsonPath("$.kind").value("dm"))
                .andExpect(jsonPath("$.sizeBytes").value(1024 * 512));
        mvc.perform(get("/api/v1/devices/dma-c-d1").with(admin()))
                .andExpect(jsonPath("$.holders[0]").value("dm dma-c"));
        assertThat(text("dma-c", "table")).isEqualTo("0 1024 linear dma-c-d1 512\n");
        assertThat(text("dma-c", "status")).isEqualTo("0 1024 linear\n");
    }

    @Test
    void createsAStripedDeviceFromTargetObjects() throws Exception {
        disk("dma-s-d1", "1MiB");
        disk("dma-s-d2", "1MiB");
        mvc.perform(createDm("""
                        {"name":"dma-s","strategies":{"flush":"per-target","batchDispatch":"timer",
                         "snapshotLocking":"global"},"table":[
                          {"start":0,"length":2048,"target":"striped","args":["2","128","dma-s-d1","0","dma-s-d2","0"]},
                          {"start":2048,"length":"8","type":"zero"},
                          {"start":2056,"length":8,"target":"linear","args":"dma-s-d1 2040"}]}"""))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.strategies.flush").value("per-target"))
                .andExpect(jsonPath("$.strategies.batchDispatch").value("timer"))
                .andExpect(jsonPath("$.strategies.snapshotLocking").value("global"))
                .andExpect(jsonPath("$.info.targetCount").value(3));
        assertThat(text("dma-s", "table")).isEqualTo("""
                0 2048 striped 2 128 dma-s-d1 0 dma-s-d2 0
                2048 8 zero
                2056 8 linear dma-s-d1 2040
                """);
        assertThat(text("dma-s", "status")).isEqualTo("""
                0 2048 striped 2 dma-s-d1 dma-s-d2 1 AA
                2048 8 zero
                2056 8 linear
                """);
        mvc.perform(get("/api/v1/devices/dma-s-d1").with(admin()))
                .andExpect(jsonPath("$.holders.length()").value(1))
                .andExpect(jsonPath("$.holders[0]").value("dm dma-s"));
    }

    @Test
    void createsADeviceWithoutATableThenLoadsAndResumesOne() throws Exception {
        disk("dma-n-d1", "1MiB");
        mvc.perform(createDm("{\"name\":\"dma-n\"}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.table").value(""))
                .andExpect(jsonPath("$.info.liveTable").value(false))
                .andExpect(jsonPath("$.info.sizeBytes").value(0));
        mvc.perform(loadText("dma-n", "0 2048 linear dma-n-d1 0\n"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.inactiveTable").value("0 2048 linear dma-n-d1 0\n"))
                .andExpect(jsonPath("$.info.inactiveTable").value(true));
        mvc.perform(dmPost("dma-n", "resume"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.table").value("0 2048 linear dma-n-d1 0\n"))
                .andExpect(jsonPath("$.info.sizeBytes").value(1 << 20))
                .andExpect(jsonPath("$.info.eventNumber").value(1));
    }

    @Test
    void dataWrittenThroughAMappedDeviceReadsBackAndLandsOnTheDisk() throws Exception {
        disk("dma-io-d1", "4MiB");
        // the device's first MiB is the disk's second
        mvc.perform(createDm("dma-io", "0 2048 linear dma-io-d1 2048\n2048 2048 zero\n")).andExpect(status().isCreated());
        byte[] data = new byte[1 << 20];
        new Random(7).nextBytes(data);
        mvc.perform(writeData("dma-io", 0, data)).andExpect(status().isNoContent());
        byte[] back = mvc.perform(readData("dma-io", 0, data.length)).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsByteArray();
        assertThat(back).isEqualTo(data);
        byte[] onDisk = mvc.perform(readData("dma-io-d1", 1 << 20, data.length)).andReturn().getResponse()
                .getContentAsByteArray();
        assertThat(onDisk).isEqualTo(data);
        mvc.perform(post("/api/v1/devices/dma-io/flush").with(admin())).andExpect(status().isNoContent());
        mvc.perform(readData("dma-io", 1 << 20, 1 << 20)).andExpect(status().isOk())
                .andExpect(content().bytes(new byte[1 << 20]));
        mvc.perform(readData("dma-io", 2 << 20, 512)).andExpect(problem(400, "out-of-range"));
        mvc.perform(get("/api/v1/devices/dma-io").with(admin()))
                .andExpect(jsonPath("$.stats.writes").value(1))
                .andExpect(jsonPath("$.stats.writtenBytes").value(1 << 20))
                .andExpect(jsonPath("$.stats.flushes").value(1));
    }

    @Test
    void mappedDevicesStackOnMappedDevices() throws Exception {
        disk("dma-st-d1", "2MiB");
        mvc.perform(createDm("dma-st-low", "0 4096 linear dma-st-d1 0\n")).andExpect(status().isCreated());
        mvc.perform(createDm("dma-st-up", "0 2048 linear dma-st-low 2048\n")).andExpect(status().isCreated());
        mvc.perform(dmGet("dma-st-low"))
                .andExpect(jsonPath("$.info.openCount").value(1));
        mvc.perform(get("/api/v1/devices/dma-st-low").with(admin()))
                .andExpect(jsonPath("$.holders[0]").value("dm dma-st-up"));
        byte[] data = new byte[64 << 10];
        new Random(11).nextBytes(data);
        mvc.perform(writeData("dma-st-up", 4096, data)).andExpect(status().isNoContent());
        mvc.perform(readData("dma-st-d1", (1 << 20) + 4096, data.length)).andExpect(content().bytes(data));
        mvc.perform(readData("dma-st-up", 4096, data.length)).andExpect(content().bytes(data));
    }

    /** The README's promise: {@code #} starts a comment, also after a target on its line. */
    @Test
    void aTableLineMayEndInAComment() throws Exception {
        mvc.perform(createDm("dma-cmt", "0 8 zero # comment\n8 8 zero\t#another")).andExpect(status().isCreated())
                .andExpect(jsonPath("$.table").value("0 8 zero\n8 8 zero\n"));
    }

    /**
     * A read inside a mapped device whose lower device has since shrunk is an I/O error of the
     * device (EIO, as the kernel reports a bio past the end of a lower device), not a request out
     * of range: the request is inside the device it was sent to.
     */
    @Test
    void aReadPastTheEndOfAShrunkLowerDeviceIsAnIoError() throws Exception {
        mvc.perform(createDm("dma-shr-low", "0 16 zero")).andExpect(status().isCreated());
        mvc.perform(createDm("dma-shr-up", "0 16 linear dma-shr-low 0")).andExpect(status().isCreated());
        mvc.perform(loadText("dma-shr-low", "0 8 zero")).andExpect(status().isOk());
        mvc.perform(dmPost("dma-shr-low", "resume")).andExpect(status().isOk());
        mvc.perform(readData("dma-shr-up", 0, 4096)).andExpect(status().isOk());
        mvc.perform(readData("dma-shr-up", 4096, 4096)).andExpect(problem(500, "io-error"));
        mvc.perform(readData("dma-shr-up", 8192, 512)).andExpect(problem(400, "out-of-range"));
    }

    @Test
    void suspendLoadResumeGrowsADevice() throws Exception {
        disk("dma-g-d1", "1MiB");
        disk("dma-g-d2", "1MiB");
        mvc.perform(createDm("dma-g", "0 2048 linear dma-g-d1 0")).andExpect(status().isCreated());
        mvc.perform(dmPost("dma-g", "suspend"))
                .andExpect(status().isOk()).andExpect(jsonPath("$.info.state").value("suspended"));
        mvc.perform(loadJson("dma-g", """
                        {"table":"0 2048 linear dma-g-d1 0\\n2048 2048 linear dma-g-d2 0"}"""))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.table").value("0 2048 linear dma-g-d1 0\n"))
                .andExpect(jsonPath("$.inactiveTable").value("0 2048 linear dma-g-d1 0\n2048 2048 linear dma-g-d2 0\n"));
        // the inactive table holds its devices already
        mvc.perform(get("/api/v1/devices/dma-g-d2").with(admin())).andExpect(jsonPath("$.holders[0]").value("dm dma-g"));
        assertThat(text("dma-g", "table?inactive=true")).isEqualTo("0 2048 linear dma-g-d1 0\n2048 2048 linear dma-g-d2 0\n");
        mvc.perform(dmPost("dma-g", "resume"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.info.state").value("active"))
                .andExpect(jsonPath("$.info.sizeBytes").value(2 << 20))
                .andExpect(jsonPath("$.inactiveTable").doesNotExist());
        mvc.perform(get("/api/v1/devices/dma-g").with(admin())).andExpect(jsonPath("$.sizeBytes").value(2 << 20));
    }

    @Test
    void resumeOfAnActiveDeviceWithATableLoadedSwapsItIn() throws Exception {
        disk("dma-sw-d1", "1MiB");
        disk("dma-sw-d2", "1MiB");
        mvc.perform(createDm("dma-sw", "0 2048 linear dma-sw-d1 0")).andExpect(status().isCreated());
        mvc.perform(loadText("dma-sw", "0 2048 linear dma-sw-d2 0")).andExpect(status().isOk());
        mvc.perform(dmPost("dma-sw", "resume"))
                .andExpect(jsonPath("$.table").value("0 2048 linear dma-sw-d2 0\n"))
                .andExpect(jsonPath("$.info.state").value("active"));
        // the old table's device is released
        mvc.perform(get("/api/v1/devices/dma-sw-d1").with(admin())).andExpect(jsonPath("$.holders.length()").value(0));
        mvc.perform(get("/api/v1/devices/dma-sw-d2").with(admin())).andExpect(jsonPath("$.holders[0]").value("dm dma-sw"));
    }

    @Test
    void clearDropsTheInactiveTableAndReleasesItsDevices() throws Exception {
        disk("dma-cl-d1", "1MiB");
        disk("dma-cl-d2", "1MiB");
        mvc.perform(createDm("dma-cl", "0 2048 linear dma-cl-d1 0")).andExpect(status().isCreated());
        mvc.perform(loadText("dma-cl", "0 2048 linear dma-cl-d2 0")).andExpect(status().isOk());
        mvc.perform(delete(DEVICES + "/dma-cl/table/inactive").with(admin()))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.inactiveTable").doesNotExist())
                .andExpect(jsonPath("$.table").value("0 2048 linear dma-cl-d1 0\n"));
        mvc.perform(get("/api/v1/devices/dma-cl-d2").with(admin())).andExpect(jsonPath("$.holders.length()").value(0));
        assertThat(text("dma-cl", "table?inactive=true")).isEmpty();
    }

    @Test
    void suspendingTwiceIsAConflict() throws Exception {
        mvc.perform(createDm("dma-s2", "0 8 zero")).andExpect(status().isCreated());
        mvc.perform(dmPost("dma-s2", "suspend").param("noflush", "true")).andExpect(status().isOk());
        mvc.perform(dmPost("dma-s2", "suspend"))
                .andExpect(problem(409, "invalid-state"))
                .andExpect(jsonPath("$.detail").value(containsString("already suspended")));
        mvc.perform(dmPost("dma-s2", "resume")).andExpect(jsonPath("$.info.state").value("active"));
    }

    @Test
    void resumingAnActiveDeviceWithNothingLoadedIsAConflict() throws Exception {
        mvc.perform(createDm("dma-r0", "0 8 zero")).andExpect(status().isCreated());
        mvc.perform(dmPost("dma-r0", "resume"))
                .andExpect(problem(409, "invalid-state"))
                .andExpect(jsonPath("$.detail").value(containsString("nothing to resume")));
        mvc.perform(dmGet("dma-r0")).andExpect(jsonPath("$.info.eventNumber").value(0));
    }

    @Test
    void aTargetThatTakesNoMessagesRefusesOne() throws Exception {
        mvc.perform(createDm("dma-msg", "0 8 zero\n8 8 error")).andExpect(status().isCreated());
        mvc.perform(dmPost("dma-msg", "message", "{\"sector\":9,\"message\":\"hello there\"}"))
                .andExpect(problem(409, "message-refused"))
                .andExpect(jsonPath("$.detail").value("error at sector 8: target does not handle messages"));
        mvc.perform(dmPost("dma-msg", "message", "{\"sector\":16,\"message\":\"hello\"}"))
                .andExpect(problem(409, "message-refused"))
                .andExpect(jsonPath("$.detail").value(containsString("no target of 'dma-msg' covers sector 16")));
        mvc.perform(dmPost("dma-msg", "message", "{\"sector\":-1,\"message\":\"hello\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("sector"));
        mvc.perform(dmPost("dma-msg", "message", "{\"sector\":0,\"message\":\" \"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("message"));
    }

    @Test
    void renameMovesTheNameAndStackedTablesFollow() throws Exception {
        disk("dma-rn-d1", "1MiB");
        mvc.perform(createDm("dma-rn-a", "0 2048 linear dma-rn-d1 0")).andExpect(status().isCreated());
        mvc.perform(createDm("dma-rn-up", "0 1024 linear dma-rn-a 0")).andExpect(status().isCreated());
        mvc.perform(dmPost("dma-rn-a", "rename", "{\"newName\":\"dma-rn-b\"}"))
                .andExpect(status().isOk())
                .andExpect(header().string("Location", "/api/v1/dm/devices/dma-rn-b"))
                .andExpect(jsonPath("$.name").value("dma-rn-b"))
                .andExpect(jsonPath("$.info.openCount").value(1));
        mvc.perform(dmGet("dma-rn-a")).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/dma-rn-a").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/dma-rn-b").with(admin()))
                .andExpect(jsonPath("$.kind").value("dm")).andExpect(jsonPath("$.holders[0]").value("dm dma-rn-up"));
        mvc.perform(get("/api/v1/devices/dma-rn-d1").with(admin())).andExpect(jsonPath("$.holders[0]").value("dm dma-rn-b"));
        assertThat(text("dma-rn-up", "table")).isEqualTo("0 1024 linear dma-rn-b 0\n");
        mvc.perform(dmGet("dma-rn-up")).andExpect(jsonPath("$.table").value("0 1024 linear dma-rn-b 0\n"));
    }

    @Test
    void renameToATakenNameIsRefused() throws Exception {
        disk("dma-rt-d1", "1MiB");
        mvc.perform(createDm("dma-rt", "0 8 zero")).andExpect(status().isCreated());
        mvc.perform(dmPost("dma-rt", "rename", "{\"newName\":\"dma-rt-d1\"}"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.field").value("newName"));
        mvc.perform(dmPost("dma-rt", "rename", "{\"newName\":\"Bad Name\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("newName"));
        mvc.perform(dmGet("dma-rt")).andExpect(status().isOk());
    }

    @Test
    void renameIsRefusedWhileAnObjectOfAnotherKindUsesTheDevice() throws Exception {
        mvc.perform(createDm("dma-rh", "0 8 zero")).andExpect(status().isCreated());
        Holder export = new Holder("export", "nbd-test");
        registry.claim("dma-rh", export, Claim.WRITER);
        try {
            mvc.perform(dmPost("dma-rh", "rename", "{\"newName\":\"dma-rh2\"}"))
                    .andExpect(problem(409, "device-busy")).andExpect(jsonPath("$.holders[0]").value("export nbd-test"));
        } finally {
            registry.release("dma-rh", export);
        }
        mvc.perform(dmGet("dma-rh")).andExpect(status().isOk());
    }

    @Test
    void deleteRemovesTheDeviceAndReleasesItsDevices() throws Exception {
        disk("dma-del-d1", "1MiB");
        mvc.perform(createDm("dma-del", "0 2048 linear dma-del-d1 0")).andExpect(status().isCreated());
        mvc.perform(dmDelete("dma-del")).andExpect(status().isNoContent());
        mvc.perform(dmGet("dma-del")).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/dma-del").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(delete("/api/v1/disks/dma-del-d1").with(admin())).andExpect(status().isNoContent());
    }

    @Test
    void deleteIsRefusedWhileAnotherDeviceUsesItEvenForced() throws Exception {
        disk("dma-f-d1", "1MiB");
        mvc.perform(createDm("dma-f-low", "0 2048 linear dma-f-d1 0")).andExpect(status().isCreated());
        mvc.perform(createDm("dma-f-up", "0 2048 linear dma-f-low 0")).andExpect(status().isCreated());
        mvc.perform(dmDelete("dma-f-low"))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders[0]").value("dm dma-f-up"));
        // force removes exports, not the devices built on it
        mvc.perform(dmDelete("dma-f-low").param("force", "true"))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders[0]").value("dm dma-f-up"));
        mvc.perform(dmGet("dma-f-low"))
                .andExpect(jsonPath("$.info.state").value("active"))
                .andExpect(jsonPath("$.info.openCount").value(1))
                .andExpect(jsonPath("$.table").value("0 2048 linear dma-f-d1 0\n"));
        // a disk under a mapped device is held too
        mvc.perform(delete("/api/v1/disks/dma-f-d1").with(admin()))
                .andExpect(problem(409, "device-busy")).andExpect(jsonPath("$.holders[0]").value("dm dma-f-low"));
        mvc.perform(readData("dma-f-up", 0, 4096)).andExpect(status().isOk());

        mvc.perform(dmDelete("dma-f-up")).andExpect(status().isNoContent());
        mvc.perform(dmGet("dma-f-low")).andExpect(jsonPath("$.info.openCount").value(0));
        mvc.perform(dmDelete("dma-f-low")).andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/devices/dma-f-d1").with(admin())).andExpect(jsonPath("$.holders.length()").value(0));
    }

    @Test
    void forcedDeleteRemovesTheExportsOfASuspendedDevice() throws Exception {
        disk("dma-x-d1", "1MiB");
        mvc.perform(createDm("dma-x", "0 2048 linear dma-x-d1 0")).andExpect(status().isCreated());
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"device\":\"dma-x\"}"))
                .andExpect(status().isCreated());
        mvc.perform(dmPost("dma-x", "suspend")).andExpect(status().isOk());
        mvc.perform(dmDelete("dma-x"))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders[0]").value("export dma-x"));
        mvc.perform(dmPost("dma-x", "rename", "{\"newName\":\"dma-x2\"}"))
                .andExpect(problem(409, "device-busy"));

        mvc.perform(dmDelete("dma-x").param("force", "true")).andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/exports/dma-x").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/dma-x").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/dma-x-d1").with(admin())).andExpect(jsonPath("$.holders.length()").value(0));
    }

    @Test
    void viewersReadButDoNotChange() throws Exception {
        mvc.perform(createDm("dma-v", "0 8 zero")).andExpect(status().isCreated());
        mvc.perform(get(DEVICES + "/dma-v").with(viewer())).andExpect(status().isOk());
        mvc.perform(get(DEVICES + "/dma-v/table").with(viewer())).andExpect(status().isOk());
        mvc.perform(get(DEVICES).with(viewer())).andExpect(status().isOk());
        mvc.perform(post(DEVICES + "/dma-v/suspend").with(viewer())).andExpect(problem(403, "forbidden"));
        mvc.perform(delete(DEVICES + "/dma-v").with(viewer())).andExpect(problem(403, "forbidden"));
        mvc.perform(dmGet("dma-v")).andExpect(jsonPath("$.info.state").value("active"));
    }

    @Test
    void listsMappedDevicesByName() throws Exception {
        mvc.perform(createDm("dma-l-b", "0 8 zero")).andExpect(status().isCreated());
        mvc.perform(createDm("dma-l-a", "0 8 error")).andExpect(status().isCreated());
        mvc.perform(get(DEVICES).with(admin()))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$[?(@.name == 'dma-l-a')].table").value("0 8 error\n"))
                .andExpect(jsonPath("$[?(@.name == 'dma-l-b')].info.state").value("active"));
    }

    @Test
    void unknownDevicesAreNotFound() throws Exception {
        mvc.perform(dmGet("dma-nothing")).andExpect(problem(404, "not-found"));
        mvc.perform(dmText("dma-nothing", "table")).andExpect(problem(404, "not-found"));
        mvc.perform(dmPost("dma-nothing", "resume")).andExpect(problem(404, "not-found"));
        mvc.perform(dmDelete("dma-nothing")).andExpect(problem(404, "not-found"));
        // a disk is a block device but not a mapped device
        mvc.perform(createDisk("{\"name\":\"dma-nd\",\"type\":\"null\",\"size\":\"1MiB\"}")).andExpect(status().isCreated());
        mvc.perform(dmPost("dma-nd", "suspend")).andExpect(problem(404, "not-found"));
    }
}
