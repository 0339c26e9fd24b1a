package io.blockwork.array.web;

import static io.blockwork.array.web.ArrayRequests.addMember;
import static io.blockwork.array.web.ArrayRequests.createArray;
import static io.blockwork.array.web.ArrayRequests.failMember;
import static io.blockwork.array.web.ArrayRequests.settled;
import static io.blockwork.array.web.ArrayRequests.speedLimits;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/** GET /api/v1/mdstat is /proc/mdstat: md's lines for each array, and the progress bar while a recovery runs. */
@AppTest
class MdStatApiTest {

    private static final Duration LONG = Duration.ofSeconds(60);

    @Autowired
    MockMvc mvc;

    private String mdstat() throws Exception {
        var response = mvc.perform(get("/api/v1/mdstat").with(viewer())).andExpect(status().isOk()).andReturn()
                .getResponse();
        assertThat(MediaType.parseMediaType(response.getContentType()).isCompatibleWith(MediaType.TEXT_PLAIN)).isTrue();
        return response.getContentAsString();
    }

    /** The lines of one array: from "name :" to the line of six spaces that ends its block. */
    private String block(String name) throws Exception {
        Matcher m = Pattern.compile("(?ms)^" + Pattern.quote(name) + " : .*?\\n {6}\\n").matcher(mdstat());
        assertThat(m.find()).as("%s in mdstat", name).isTrue();
        return m.group();
    }

    @Test
    void arraysAreListedAsProcMdstatListsThemWithTheProgressBarOfARecovery() throws Exception {
        for (int i = 0; i < 5; i++) {
            mvc.perform(memoryDisk("ms-c" + i, "16MiB")).andExpect(status().isCreated());
        }
        mvc.perform(createArray("{\"name\":\"ms-md\",\"level\":\"raid10\",\"members\":[\"ms-c0\",\"ms-c1\",\"ms-c2\",\"ms-c3\"]}"))
                .andExpect(status().isCreated());
        await().atMost(LONG).until(() -> settled(mvc, "ms-md"));

        String text = mdstat();
        assertThat(text).startsWith("Personalities : [linear] [raid0] [raid1] [raid10] [raid4] [raid5] [raid6] \n")
                .endsWith("unused devices: <none>\n");
        // md's v1.2 superblocks (the default) put the data 2 MiB in, and the bitmap line follows the status
        assertThat(block("ms-md")).matches("ms-md : active raid10 ms-c3\\[3] ms-c2\\[2] ms-c1\\[1] ms-c0\\[0]\n"
                + "      28672 blocks super 1\\.2 512K chunks 2 near-copies \\[4/4] \\[UUUU]\n"
                + "      bitmap: [01]/1 pages \\[[04]KB], 64KB chunk\n"
                + "      \n");

        // a recovery slow enough to be seen: 16 MiB at 1 MiB/s
        mvc.perform(speedLimits("ms-md", "{\"min\":\"1MiB\",\"max\":\"1MiB\"}")).andExpect(status().isOk());
        mvc.perform(failMember("ms-md", "ms-c1")).andExpect(status().isOk());
        mvc.perform(addMember("ms-md", "{\"device\":\"ms-c4\"}")).andExpect(status().isOk());
        Pattern bar = Pattern.compile("      \\[=*>\\.*\\]  recovery = {0,2}\\d{1,3}\\.\\d% \\(\\d+/14336\\) "
                + "finish=\\d+\\.\\dmin speed=\\d+K/sec\n");
        await().atMost(LONG).until(() -> bar.matcher(block("ms-md")).find());
        String recovering = block("ms-md");
        assertThat(recovering.lines().toList().getFirst())
                .isEqualTo("ms-md : active raid10 ms-c4[4] ms-c3[3] ms-c2[2] ms-c1[1](F) ms-c0[0]");
        assertThat(recovering.lines().toList().get(1)).endsWith(" 2 near-copies [4/3] [U_UU]");

        mvc.perform(speedLimits("ms-md", "{\"min\":\"1GiB\",\"max\":\"1GiB\"}")).andExpect(status().isOk());
        await().atMost(LONG).until(() -> settled(mvc, "ms-md"));
        assertThat(block("ms-md")).contains("[4/4] [UUUU]").doesNotContain("recovery");
    }
}
