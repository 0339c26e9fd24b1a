package io.blockwork.export.web;

import static io.blockwork.export.web.ExportRequests.createExport;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.hasItem;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.export.app.NbdServerLifecycle;
import io.blockwork.support.AppTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;

/**
 * {@code blockwork.nbd.unix-socket}: the service serves NBD on that socket too, and every active
 * export shows its {@code unixUri} next to its TCP {@code uri}. (Without the setting no socket is
 * served and exports have no {@code unixUri}: {@code ExportApiTest}.)
 */
@AppTest
class ExportUnixSocketApiTest {

    private static final Path SOCKET;

    static {
        try {
            SOCKET = Files.createTempDirectory("bw-nbd-unix").resolve("nbd.sock");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @DynamicPropertySource
    static void socket(DynamicPropertyRegistry registry) {
        registry.add("blockwork.nbd.unix-socket", SOCKET::toString);
    }

    @Autowired
    MockMvc mvc;
    @Autowired
    NbdServerLifecycle nbd;

    @Test
    void exportsShowTheUnixUriAndTheSocketIsServed() throws Exception {
        assertThat(nbd.unixSocket()).contains(SOCKET.toAbsolutePath());
        assertThat(SOCKET).exists();
        mvc.perform(memoryDisk("eu-d1", "4MiB")).andExpect(status().isCreated());
        mvc.perform(createExport("{\"name\":\"eu-e1\",\"device\":\"eu-d1\"}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.unixUri").value("nbd+unix:///eu-e1?socket=" + SOCKET.toAbsolutePath()))
                .andExpect(jsonPath("$.uri").value("nbd://127.0.0.1:" + nbd.endpoint().orElseThrow().port() + "/eu-e1"));
        mvc.perform(get("/api/v1/exports").with(viewer()))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$[?(@.name == 'eu-e1')].unixUri")
                        .value(hasItem("nbd+unix:///eu-e1?socket=" + SOCKET.toAbsolutePath())));
    }
}
