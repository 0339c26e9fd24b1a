package io.blockwork.export.web;

import static io.blockwork.export.web.ExportRequests.createExport;
import static io.blockwork.support.Requests.admin;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.nbd.RawNbdClient;
import io.blockwork.nbd.ThrowingDevice;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.export.app.NbdServerLifecycle;
import io.blockwork.support.AppTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Issue 13 finding 4: health said UP while the NBD server's accept thread was dead. The NBD
 * server is now a health component: UP with its figures, DOWN with the reason once any of its
 * threads fails. Its own context (a setting of its own), closed afterwards, since DOWN stays.
 */
@AppTest
@TestPropertySource(properties = "blockwork.nbd.max-connections=63")
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class NbdHealthTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    NbdServerLifecycle nbd;
    @Autowired
    DeviceRegistry registry;

    @Test
    void healthIsUpWithTheNbdFiguresThenDownWithTheReasonOnceAServerThreadFails() throws Exception {
        mvc.perform(get("/actuator/health")).andExpect(status().isOk())
                .andExpect(jsonPath("$.status").value("UP"))
                .andExpect(jsonPath("$.components").doesNotExist()); // details for signed-in users only
        mvc.perform(get("/actuator/health").with(admin())).andExpect(status().isOk())
                .andExpect(jsonPath("$.components.nbd.status").value("UP"))
                .andExpect(jsonPath("$.components.nbd.details.maxConnections").value(63))
                .andExpect(jsonPath("$.components.nbd.details.memoryBoundBytes").value((2L * 63 + 1) * 4 * (1 << 20) + (256L << 20)))
                .andExpect(jsonPath("$.components.nbd.details.failures").value(0));

        registry.register("nh-broken", DeviceKind.DISK, new ThrowingDevice("nh-broken"));
        mvc.perform(createExport("{\"name\":\"nh-broken\",\"device\":\"nh-broken\"}")).andExpect(status().isCreated());
        try (RawNbdClient c = RawNbdClient.connect(nbd.endpoint().orElseThrow().port()).greet().go("nh-broken")) {
            c.send(NbdCommand.READ, 0, 1, 0, 4096, null);
            c.closedAfterDraining();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> nbd.status().failures() > 0);

        mvc.perform(get("/actuator/health")).andExpect(status().isServiceUnavailable())
                .andExpect(jsonPath("$.status").value("DOWN"));
        mvc.perform(get("/actuator/health").with(admin())).andExpect(status().isServiceUnavailable())
                .andExpect(jsonPath("$.components.nbd.status").value("DOWN"))
                .andExpect(jsonPath("$.components.nbd.details.reason").value(allOf(
                        containsString("OutOfMemoryError"), containsString(ThrowingDevice.MESSAGE),
                        containsString("nh-broken"))))
                .andExpect(jsonPath("$.components.nbd.details.lastFailure.where").value(containsString("reader")));
        // the server goes on serving
        mvc.perform(get("/api/v1/exports/nh-broken").with(admin())).andExpect(status().isOk());
    }
}
