package io.blockwork.dm.web;

import static io.blockwork.support.DmRequests.createDm;
import static io.blockwork.support.DmRequests.dmDelete;
import static io.blockwork.support.DmRequests.dmPost;
import static io.blockwork.support.DmRequests.dmText;
import static io.blockwork.support.DmRequests.loadText;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The dm mirror through the dm API like any target (issue 8): the engine's target registry parses
 * the table, so the API needs nothing of its own; this shows create, I/O, status, message and a
 * leg replacement by load + resume, as dmsetup would do them.
 */
@AppTest
class DmMirrorApiTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @Autowired
    MockMvc mvc;

    private String text(String name, String what) throws Exception {
        return mvc.perform(dmText(name, what)).andExpect(status().isOk()).andReturn().getResponse().getContentAsString();
    }

    private byte[] read(String device, long offset, int length) throws Exception {
        return mvc.perform(readData(device, offset, length)).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsByteArray();
    }

    @Test
    void aMirrorIsCreatedWrittenAndHasALegReplacedThroughTheApi() throws Exception {
        for (String d : new String[] {"dmm-d0", "dmm-d1", "dmm-d2"}) {
            mvc.perform(memoryDisk(d, "4MiB")).andExpect(status().isCreated());
        }
        mvc.perform(memoryDisk("dmm-log", "64KiB")).andExpect(status().isCreated());

        // 64 regions of 64 KiB; a new core log copies them all from leg 0 first (initial sync)
        mvc.perform(createDm("dmm", "0 8192 mirror core 1 128 2 dmm-d0 0 dmm-d1 0 1 handle_errors\n"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.status[0].target").value("mirror"));
        assertThat(text("dmm", "table")).isEqualTo("0 8192 mirror core 1 128 2 dmm-d0 0 dmm-d1 0 1 handle_errors\n");
        await().atMost(PATIENCE).until(() -> text("dmm", "status").equals(
                "0 8192 mirror 2 dmm-d0 dmm-d1 64/64 1 AA 1 core\n"));
        for (String leg : new String[] {"dmm-d0", "dmm-d1"}) {
            mvc.perform(get("/api/v1/devices/" + leg).with(admin())).andExpect(jsonPath("$.holders[0]").value("dm dmm"));
        }

        byte[] data = new byte[256 << 10];
        new Random(8).nextBytes(data);
        mvc.perform(writeData("dmm", 1 << 20, data)).andExpect(status().isNoContent());
        assertThat(read("dmm", 1 << 20, data.length)).isEqualTo(data);
        assertThat(read("dmm-d0", 1 << 20, data.length)).as("leg 0").isEqualTo(data);
        assertThat(read("dmm-d1", 1 << 20, data.length)).as("leg 1").isEqualTo(data);

        mvc.perform(dmPost("dmm", "message", "{\"sector\":0,\"message\":\"io_throttle 1048576\"}"))
                .andExpect(status().isOk());
        assertThat(text("dmm", "table")).endsWith(" 3 handle_errors io_throttle 1048576\n");

        // replace leg 1 by dmm-d2, with a region log on a device this time: load, then resume
        mvc.perform(loadText("dmm", "0 8192 mirror disk 2 dmm-log 128 2 dmm-d0 0 dmm-d2 0 1 handle_errors\n"))
                .andExpect(status().isOk());
        mvc.perform(dmPost("dmm", "resume")).andExpect(status().isOk());
        await().atMost(PATIENCE).until(() -> text("dmm", "status").equals(
                "0 8192 mirror 2 dmm-d0 dmm-d2 64/64 1 AA 3 disk dmm-log A\n"));
        assertThat(read("dmm-d2", 0, 4 << 20)).as("the replacement leg").isEqualTo(read("dmm-d0", 0, 4 << 20));
        mvc.perform(get("/api/v1/devices/dmm-log").with(admin())).andExpect(jsonPath("$.holders[0]").value("dm dmm"));
        mvc.perform(get("/api/v1/devices/dmm-d1").with(admin())).andExpect(jsonPath("$.holders.length()").value(0));

        mvc.perform(dmDelete("dmm")).andExpect(status().isNoContent());
        mvc.perform(delete("/api/v1/disks/dmm-log").with(admin())).andExpect(status().isNoContent());
        mvc.perform(readData("dmm-d2", 1 << 20, data.length)).andExpect(content().bytes(data));
    }
}
