package io.blockwork.dm.web;

import static io.blockwork.support.DmRequests.createDm;
import static io.blockwork.support.DmRequests.dmPost;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.viewer;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/** The write-log API: a log-writes device made over REST, its log listed and replayed onto another device. */
@AppTest
class WriteLogApiTest {

    private static final String LOGS = "/api/v1/dm/write-logs/";

    @Autowired
    MockMvc mvc;

    private static byte[] block(int fill) {
        byte[] b = new byte[4096];
        Arrays.fill(b, (byte) fill);
        return b;
    }

    private static MockHttpServletRequestBuilder replay(String log, String json) {
        return post(LOGS + log + "/replay").with(admin()).contentType(MediaType.APPLICATION_JSON).content(json);
    }

    private byte[] read(String device, long offset) throws Exception {
        return mvc.perform(readData(device, offset, 4096)).andExpect(status().isOk()).andReturn().getResponse()
                .getContentAsByteArray();
    }

    /** wl-<p>-d under log-writes device wl-<p>-lw, its log on wl-<p>-log: a FUA write, a mark, a write and a flush. */
    private void logSomething(String p) throws Exception {
        mvc.perform(memoryDisk("wl-" + p + "-d", "1MiB")).andExpect(status().isCreated());
        mvc.perform(memoryDisk("wl-" + p + "-log", "4MiB")).andExpect(status().isCreated());
        mvc.perform(createDm("wl-" + p + "-lw", "0 2048 log-writes wl-" + p + "-d wl-" + p + "-log\n"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.table").value("0 2048 log-writes wl-" + p + "-d wl-" + p + "-log\n"));
        mvc.perform(writeData("wl-" + p + "-lw", 0, block(1)).param("fua", "true")).andExpect(status().isNoContent());
        mvc.perform(dmPost("wl-" + p + "-lw", "message", "{\"sector\":0,\"message\":\"mark first\"}"))
                .andExpect(status().isOk());
        mvc.perform(writeData("wl-" + p + "-lw", 4096, block(2))).andExpect(status().isNoContent());
        mvc.perform(post("/api/v1/devices/wl-" + p + "-lw/flush").with(admin())).andExpect(status().isNoContent());
    }

    @Test
    void listsTheLogAndReplaysItOntoAnotherDeviceUpToAMark() throws Exception {
        logSomething("a");
        mvc.perform(get(LOGS + "wl-a-log").with(viewer()))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.device").value("wl-a-log"))
                .andExpect(jsonPath("$.sectorSize").value(512))
                .andExpect(jsonPath("$.entries").value(4))
                .andExpect(jsonPath("$.writes").value(2))
                .andExpect(jsonPath("$.flushes").value(1))
                .andExpect(jsonPath("$.fuas").value(1))
                .andExpect(jsonPath("$.marks[0].entry").value(1))
                .andExpect(jsonPath("$.marks[0].name").value("first"));
        mvc.perform(get(LOGS + "wl-a-log/entries").with(viewer()))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.length()").value(4))
                .andExpect(jsonPath("$[0].kind").value("write"))
                .andExpect(jsonPath("$[0].flags[0]").value("fua"))
                .andExpect(jsonPath("$[0].offset").value(0))
                .andExpect(jsonPath("$[0].length").value(4096))
                .andExpect(jsonPath("$[1].kind").value("mark"))
                .andExpect(jsonPath("$[1].mark").value("first"))
                .andExpect(jsonPath("$[2].offset").value(4096))
                .andExpect(jsonPath("$[3].kind").value("flush"));
        mvc.perform(get(LOGS + "wl-a-log/entries").param("from", "1").param("flags", "flush,fua").param("limit", "1")
                        .with(viewer()))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.length()").value(1))
                .andExpect(jsonPath("$[0].index").value(3));

        mvc.perform(memoryDisk("wl-a-rep", "1MiB")).andExpect(status().isCreated());
        mvc.perform(replay("wl-a-log", "{\"target\":\"wl-a-rep\",\"endMark\":\"first\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.log").value("wl-a-log"))
                .andExpect(jsonPath("$.target").value("wl-a-rep"))
                .andExpect(jsonPath("$.firstEntry").value(0))
                .andExpect(jsonPath("$.lastEntry").value(1))
                .andExpect(jsonPath("$.entries").value(2))
                .andExpect(jsonPath("$.writes").value(1))
                .andExpect(jsonPath("$.bytesWritten").value(4096));
        assertThat(read("wl-a-rep", 0)).isEqualTo(block(1));
        assertThat(read("wl-a-rep", 4096)).as("written after the mark").isEqualTo(new byte[4096]);

        mvc.perform(replay("wl-a-log", "{\"target\":\"wl-a-rep\",\"startEntry\":2}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.lastEntry").value(3));
        assertThat(read("wl-a-rep", 4096)).isEqualTo(block(2));
        mvc.perform(delete("/api/v1/disks/wl-a-rep").with(admin()))
                .andExpect(status().isNoContent()); // the replay's hold is gone
    }

    @Test
    void refusedReplaysWriteNothing() throws Exception {
        logSomething("b");
        mvc.perform(memoryDisk("wl-b-small", "2KiB")).andExpect(status().isCreated());
        mvc.perform(memoryDisk("wl-b-rep", "1MiB")).andExpect(status().isCreated());
        mvc.perform(writeData("wl-b-small", 0, new byte[2048])).andExpect(status().isNoContent());

        mvc.perform(replay("wl-b-log", "{\"target\":\"wl-b-small\"}"))
                .andExpect(problem(400, "out-of-range"))
                .andExpect(jsonPath("$.field").value("target"));
        mvc.perform(replay("wl-b-log", "{\"target\":\"wl-b-d\"}"))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.field").value("target"));
        mvc.perform(replay("wl-b-log", "{\"target\":\"wl-b-log\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("target"));
        mvc.perform(replay("wl-b-log", "{\"target\":\"wl-b-rep\",\"endMark\":\"nope\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("endMark"));
        mvc.perform(replay("wl-b-log", "{\"target\":\"wl-b-rep\",\"endMark\":\"first\",\"limit\":1}"))
                .andExpect(problem(400, "validation-failed"));
        mvc.perform(replay("wl-b-log", "{\"target\":\"wl-b-rep\",\"throughEntry\":9}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("throughEntry"));
        mvc.perform(replay("wl-b-rep", "{\"target\":\"wl-b-small\"}"))
                .andExpect(problem(409, "no-write-log"));
        mvc.perform(replay("wl-b-none", "{\"target\":\"wl-b-rep\"}"))
                .andExpect(problem(404, "not-found"));
        mvc.perform(post(LOGS + "wl-b-log/replay").with(viewer()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"target\":\"wl-b-rep\"}"))
                .andExpect(problem(403, "forbidden"));
        mvc.perform(get(LOGS + "wl-b-log/entries").param("flags", "sync").with(viewer()))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("flags"));
        mvc.perform(get(LOGS + "wl-b-log/entries").param("limit", "0").with(viewer()))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("limit"));
        assertThat(read("wl-b-rep", 0)).as("nothing was replayed").isEqualTo(new byte[4096]);
        mvc.perform(delete("/api/v1/disks/wl-b-log").with(admin()))
                .andExpect(problem(409, "device-busy")); // the log-writes device holds its log device

        mvc.perform(delete("/api/v1/dm/devices/wl-b-lw").with(admin())).andExpect(status().isNoContent());
        mvc.perform(createDm("wl-b-above", "0 2048 linear wl-b-log 0\n")).andExpect(status().isCreated());
        mvc.perform(replay("wl-b-log", "{\"target\":\"wl-b-above\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.detail").value(org.hamcrest.Matchers.containsString("would overwrite the log")));
        mvc.perform(get(LOGS + "wl-b-log").with(viewer()))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.marks[1].name").value("dm-log-writes-end"));
    }
}
