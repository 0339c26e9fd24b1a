package io.blockwork.array.web;

import static io.blockwork.array.web.ArrayRequests.array;
import static io.blockwork.array.web.ArrayRequests.at;
import static io.blockwork.array.web.ArrayRequests.createArray;
import static io.blockwork.array.web.ArrayRequests.failMember;
import static io.blockwork.array.web.ArrayRequests.settled;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/** raid4/5/6 through the arrays API: levels, layouts, chunk, stripe cache, journal, bad input, mdstat, the parity choice. */
@AppTest
class ParityArrayApiTest {

    private static final Duration LONG = Duration.ofSeconds(60);

    @Autowired
    MockMvc mvc;

    private void disks(String prefix, int n, String size) throws Exception {
        for (int i = 0; i < n; i++) {
            mvc.perform(memoryDisk(prefix + i, size)).andExpect(status().isCreated());
        }
    }

    @Test
    void raid6IsCreatedWithItsLayoutAndShownAsTheKernelShowsIt() throws Exception {
        disks("p6-", 5, "8MiB");
        mvc.perform(createArray("{\"name\":\"p6\",\"level\":\"6\",\"members\":[\"p6-0\",\"p6-1\",\"p6-2\",\"p6-3\",\"p6-4\"],"
                        + "\"chunk\":\"128KiB\",\"layout\":\"right-symmetric\",\"stripeCacheSize\":512,\"bitmapDelay\":2}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.level").value("raid6"))
                .andExpect(jsonPath("$.layout").value("right-symmetric"))
                .andExpect(jsonPath("$.layoutCode").value(3))
                .andExpect(jsonPath("$.chunkBytes").value(128 * 1024))
                // three data members of 8 MiB less md's v1.2 data offset (1 MiB): 3 x 7 MiB
                .andExpect(jsonPath("$.sizeBytes").value(3 * 7 * 1024 * 1024))
                .andExpect(jsonPath("$.metadata").value("1.2"))
                .andExpect(jsonPath("$.bitmap.chunkBytes").isNumber())
                .andExpect(jsonPath("$.bitmap.delaySeconds").value(2))
                .andExpect(jsonPath("$.stripeCache.size").value(512))
                .andExpect(jsonPath("$.sync.action").exists());
        await().atMost(LONG).until(() -> settled(mvc, "p6"));
        mvc.perform(failMember("p6", "p6-1")).andExpect(status().isOk());
        mvc.perform(failMember("p6", "p6-3")).andExpect(status().isOk());
        mvc.perform(failMember("p6", "p6-4")).andExpect(status().isConflict())
                .andExpect(jsonPath("$.field").value("member"));
        String mdstat = mvc.perform(get("/api/v1/mdstat").with(viewer())).andReturn().getResponse().getContentAsString();
        assertThat(mdstat).contains("active raid6 ", "level 6, 128k chunk, algorithm 3 [5/3] [U_U_U]");
        Object a = array(mvc, "p6");
        assertThat((Object) at(a, "$.arrayState")).asString().contains("degraded");
    }

    @Test
    void badParityInputNamesTheFieldAndChangesNothing() throws Exception {
        disks("pb-", 4, "8MiB");
        String members = "\"members\":[\"pb-0\",\"pb-1\",\"pb-2\",\"pb-3\"]";
        mvc.perform(createArray("{\"name\":\"pb\",\"level\":\"raid5\"," + members + ",\"layout\":\"ddf-N-restart\"}"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.field").value("layout"));
        mvc.perform(createArray("{\"name\":\"pb\",\"level\":\"raid5\"," + members + ",\"layout\":\"n2\"}"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.field").value("layout"));
        mvc.perform(createArray("{\"name\":\"pb\",\"level\":\"raid4\"," + members + ",\"layout\":\"left-symmetric\"}"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.field").value("layout"));
        mvc.perform(createArray("{\"name\":\"pb\",\"level\":\"raid5\"," + members + ",\"stripeCacheSize\":8}"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.field").value("stripeCacheSize"));
        mvc.perform(createArray("{\"name\":\"pb\",\"level\":\"raid1\"," + members + ",\"stripeCacheSize\":64}"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.field").value("stripeCacheSize"));
        mvc.perform(createArray("{\"name\":\"pb\",\"level\":\"raid6\",\"members\":[\"pb-0\",\"pb-1\",\"pb-2\"]}"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.field").value("members"));
        mvc.perform(createArray("{\"name\":\"pb\",\"level\":\"raid5\"," + members + ",\"journal\":\"pb-0\"}"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.field").value("journal"));
        mvc.perform(createArray("{\"name\":\"pb\",\"level\":\"raid5\"," + members + ",\"journal\":\"nope\"}"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.field").value("journal"));
        mvc.perform(get("/api/v1/arrays/pb").with(viewer())).andExpect(status().isNotFound());
        mvc.perform(get("/api/v1/devices/pb-0").with(viewer())).andExpect(jsonPath("$.holders").isEmpty());
    }

    @Test
    void theSystemShowsTheParityAlgorithmsChosenAtStartUp() throws Exception {
        io.blockwork.engine.md.parity.ParitySelection.awaitSelection();
        mvc.perform(get("/api/v1/system").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$.parity.measuring").value(false))
                .andExpect(jsonPath("$.parity.xor").isString())
                .andExpect(jsonPath("$.parity.raid6").isString())
                .andExpect(jsonPath("$.parity.xorMBps").isNumber())
                .andExpect(jsonPath("$.parity.vectorAvailable").value(true))
                .andExpect(jsonPath("$.parity.candidates[*].name").value(org.hamcrest.Matchers.hasItems("scalar-int64")));
    }
}
