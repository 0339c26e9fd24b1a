package io.blockwork.disk.web;

import static io.blockwork.support.Problems.problem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.block.IoCounters;
import io.blockwork.engine.disk.CacheMode;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.TransferBudget;
import io.blockwork.disk.app.DiskService;
import io.blockwork.disk.app.DiskSpec;
import io.blockwork.disk.app.DiskType;
import io.blockwork.disk.app.DiskView;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.http.MediaType;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/** The disks controller alone: JSON to use case and back, validation, problems. The service is a mock. */
@WebMvcTest(DiskController.class)
// the transfer budget's interceptor is web configuration, which the slice includes; the budget is a plain component
@Import(TransferBudget.class)
@Tag("api")
class DiskControllerSliceTest {

    @Autowired
    MockMvc mvc;

    @MockitoBean
    DiskService disks;

    /** The create-or-confirm flow reads the disk first: none is there. */
    @BeforeEach
    void noDiskYet() {
        when(disks.get(any())).thenThrow(ProblemException.notFound("disk", "s1"));
    }

    private static MockHttpServletRequestBuilder create(String json) {
        return post("/api/v1/disks").with(user("admin").roles("ADMIN")).with(csrf())
                .contentType(MediaType.APPLICATION_JSON).content(json);
    }

    @Test
    void createMapsUnitsAndDefaultsIntoTheSpecAndTheViewBack() throws Exception {
        DiskSpec expected = new DiskSpec("s1", DiskType.MEMORY, 512L << 20, 512, CacheMode.WRITEBACK,
                new LatencyModel(80_000, 80_000, 1_000_000, 20_000), 0, FlushMerging.OFF);
        when(disks.create(any(), anyBoolean())).thenReturn(new DiskView(expected, Instant.EPOCH, ObjectState.RUNNING, 4096L,
                new DiskView.Stats(IoCounters.ZERO, 3, 2), DiskFaults.NONE, null, "n1"));

        mvc.perform(create("""
                        {"name":"s1","type":"memory","size":"512MiB","cache":"writeback",
                         "latency":{"read":"80us","write":"80us","flush":"1ms","jitter":"20us"},
                         "strategies":{"flush":"off"}}"""))
                .andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/v1/disks/s1"))
                .andExpect(jsonPath("$.latency.flush").value("1ms"))
                .andExpect(jsonPath("$.stats.mediaFlushes").value(3))
                .andExpect(jsonPath("$.stats.merges").value(2))
                .andExpect(jsonPath("$.allocatedBytes").value(4096))
                .andExpect(jsonPath("$.state.actual").value("active"))
                .andExpect(jsonPath("$.state.reason").doesNotExist());

        ArgumentCaptor<DiskSpec> spec = ArgumentCaptor.forClass(DiskSpec.class);
        verify(disks).create(spec.capture(), eq(false));
        assertThat(spec.getValue()).isEqualTo(expected);
    }

    @Test
    void serviceProblemsAreRenderedAsProblemJson() throws Exception {
        when(disks.create(any(), anyBoolean())).thenThrow(new ProblemException(Problem.NAME_TAKEN, "taken").atField("name"));
        mvc.perform(create("{\"name\":\"s2\",\"type\":\"memory\",\"size\":4096}"))
                .andExpect(problem(409, "name-taken"))
                .andExpect(jsonPath("$.field").value("name"))
                .andExpect(jsonPath("$.instance").value("/api/v1/disks"));
    }

    @Test
    void invalidBodiesNeverReachTheService() throws Exception {
        mvc.perform(create("{\"type\":\"tape\",\"size\":\"1MiB\",\"queueDepth\":-1}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.errors.length()").value(3));
        verifyNoInteractions(disks);
    }
}
