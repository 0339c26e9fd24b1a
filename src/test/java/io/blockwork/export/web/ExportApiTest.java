package io.blockwork.export.web;

import static io.blockwork.export.web.ExportRequests.createExport;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.nbd.RawNbdClient;
import io.blockwork.nbd.protocol.NbdError;
import io.blockwork.nbd.protocol.OptionReply;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Claim;
import io.blockwork.shared.device.Holder;
import io.blockwork.export.app.NbdServerLifecycle;
import io.blockwork.support.AppTest;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/** The exports API: every operation, the NBD side of each, and forced deletion of an exported disk. */
@AppTest
class ExportApiTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    NbdServerLifecycle nbd;
    @Autowired
    DeviceRegistry registry;

    private int port() {
        return nbd.endpoint().orElseThrow().port();
    }

    private void disk(String name) throws Exception {
        mvc.perform(memoryDisk(name, "4MiB")).andExpect(status().isCreated());
    }

    /** A client in transmission on {@code export}. */
    private RawNbdClient client(String export) {
        return RawNbdClient.connect(port()).greet().go(export);
    }

    @Test
    void systemReportsWhereTheNbdServerListens() throws Exception {
        assertThat(port()).isPositive();
        mvc.perform(get("/api/v1/system").with(viewer()))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.nbd.address").value("127.0.0.1"))
                .andExpect(jsonPath("$.nbd.port").value(port()))
                .andExpect(jsonPath("$.nbd.tls").value(false));
    }

    @Test
    void createsAnExportThatHoldsItsDevice() throws Exception {
        disk("ea-d1");
        mvc.perform(createExport("{\"name\":\"ea-e1\",\"device\":\"ea-d1\",\"description\":\"scratch\"}"))
                .andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/v1/exports/ea-e1"))
                .andExpect(jsonPath("$.name").value("ea-e1"))
                .andExpect(jsonPath("$.device").value("ea-d1"))
                .andExpect(jsonPath("$.deviceKind").value("disk"))
                .andExpect(jsonPath("$.readOnly").value(false))
                .andExpect(jsonPath("$.description").value("scratch"))
                .andExpect(jsonPath("$.uri").value("nbd://127.0.0.1:" + port() + "/ea-e1"))
                .andExpect(jsonPath("$.unixUri").doesNotExist())
                .andExpect(jsonPath("$.sizeBytes").value(4 << 20))
                .andExpect(jsonPath("$.state.actual").value("active"))
                .andExpect(jsonPath("$.clients").isEmpty())
                .andExpect(jsonPath("$.createdAt").isString());
        mvc.perform(get("/api/v1/devices/ea-d1").with(admin()))
                .andExpect(jsonPath("$.holders[0]").value("export ea-e1"));
        try (RawNbdClient c = client("ea-e1")) {
            assertThat(c.exportSize).isEqualTo(4 << 20);
        }
    }

    @Test
    void anAllowListIsKeptInCanonicalFormAndTheNbdServerEnforcesIt() throws Exception {
        disk("ea-dacl");
        mvc.perform(createExport("{\"name\":\"ea-eacl\",\"device\":\"ea-dacl\","
                        + "\"allowedClients\":[\"127.0.0.1\",\"FD00:0::/8\",\"127.0.0.1/32\"]}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.tls").value("optional"))
                .andExpect(jsonPath("$.allowedClients.length()").value(2))
                .andExpect(jsonPath("$.allowedClients[0]").value("127.0.0.1/32"))
                .andExpect(jsonPath("$.allowedClients[1]").value("fd00::/8"));
        try (RawNbdClient c = RawNbdClient.connect(port(), java.net.InetAddress.ofLiteral("127.0.0.2")).greet()) {
            assertThat(c.listNames()).doesNotContain("ea-eacl");
            assertThat(c.tryGo("ea-eacl").getLast().kind()).isEqualTo(OptionReply.ERR_POLICY);
        }
        try (RawNbdClient c = client("ea-eacl")) {
            assertThat(c.flush(1).error()).isZero();
        }
        mvc.perform(get("/api/v1/exports/ea-eacl").with(viewer()))
                .andExpect(jsonPath("$.allowedClients[1]").value("fd00::/8"))
                .andExpect(jsonPath("$.uri").value(startsWith("nbd://")));
    }

    @Test
    void tlsRequiredIsRefusedWhileTheServerHasNoTls() throws Exception {
        disk("ea-dtls");
        mvc.perform(createExport("{\"name\":\"ea-etls\",\"device\":\"ea-dtls\",\"tls\":\"required\"}"))
                .andExpect(problem(409, "not-supported"))
                .andExpect(jsonPath("$.field").value("tls"))
                .andExpect(jsonPath("$.detail").value(containsString("blockwork.nbd.tls.bundle")));
        mvc.perform(get("/api/v1/exports/ea-etls").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/ea-dtls").with(admin())).andExpect(jsonPath("$.holders").isEmpty());
    }

    @Test
    void theNameDefaultsToTheDeviceName() throws Exception {
        disk("ea-d2");
        mvc.perform(createExport("{\"device\":\"ea-d2\"}"))
                .andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/v1/exports/ea-d2"))
                .andExpect(jsonPath("$.name").value("ea-d2"))
                .andExpect(jsonPath("$.description").value(""));
    }

    @Test
    void listAndGetShowConnectedClients() throws Exception {
        disk("ea-d3");
        mvc.perform(createExport("{\"name\":\"ea-e3\",\"device\":\"ea-d3\"}")).andExpect(status().isCreated());
        try (RawNbdClient c = client("ea-e3")) {
            assertThat(c.write(1, 0, new byte[4096], 0).error()).isZero();
            assertThat(c.read(2, 0, 4096).error()).isZero();
            // the server counts a request as served once its reply is written, just after the client may read it
            await().atMost(Duration.ofSeconds(60)).until(() -> served("ea-e3") == 2);
            mvc.perform(get("/api/v1/exports").with(viewer()))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$[?(@.name == 'ea-e3')].clients[0].remoteAddress")
                            .value(hasItem(startsWith("127.0.0.1:"))))
                    .andExpect(jsonPath("$[?(@.name == 'ea-e3')].clients[0].connectedAt").isNotEmpty());
            mvc.perform(get("/api/v1/exports/ea-e3").with(viewer()))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.clients.length()").value(1))
                    .andExpect(jsonPath("$.clients[0].requestsServed").value(2))
                    .andExpect(jsonPath("$.clients[0].id").isNumber());
        }
    }

    private int served(String export) throws Exception {
        String body = mvc.perform(get("/api/v1/exports/{name}", export).with(admin()))
                .andReturn().getResponse().getContentAsString();
        Object n = JsonPath.read(body, "$.clients[0].requestsServed");
        return ((Number) n).intValue();
    }

    @Test
    void deleteDisconnectsClientsAndRefusesNewOnes() throws Exception {
        disk("ea-d4");
        mvc.perform(createExport("{\"name\":\"ea-e4\",\"device\":\"ea-d4\"}")).andExpect(status().isCreated());
        try (RawNbdClient connected = client("ea-e4")) {
            assertThat(connected.write(1, 0, new byte[512], 0).error()).isZero();

            mvc.perform(delete("/api/v1/exports/ea-e4").with(admin())).andExpect(status().isNoContent());

            assertThat(connected.closedAfterDraining()).as("the connected client is disconnected").isTrue();
        }
        try (RawNbdClient late = RawNbdClient.connect(port()).greet()) {
            assertThat(late.tryGo("ea-e4").getLast().kind()).isEqualTo(OptionReply.ERR_UNKNOWN);
        }
        mvc.perform(get("/api/v1/exports/ea-e4").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/ea-d4").with(admin()))
                .andExpect(status().isOk()).andExpect(jsonPath("$.holders").isEmpty());
    }

    @Test
    void aReadOnlyExportRefusesWritesWithEperm() throws Exception {
        disk("ea-d5");
        mvc.perform(createExport("{\"name\":\"ea-e5\",\"device\":\"ea-d5\",\"readOnly\":true}"))
                .andExpect(status().isCreated()).andExpect(jsonPath("$.readOnly").value(true));
        try (RawNbdClient c = client("ea-e5")) {
            assertThat(c.write(1, 0, new byte[512], 0).error()).isEqualTo(NbdError.EPERM.code());
            assertThat(c.read(2, 0, 512).error()).isZero();
        }
    }

    @Test
    void deletingAnExportedDiskIsRefusedNamingTheExport() throws Exception {
        disk("ea-d6");
        mvc.perform(createExport("{\"name\":\"ea-e6\",\"device\":\"ea-d6\"}")).andExpect(status().isCreated());
        mvc.perform(delete("/api/v1/disks/ea-d6").with(admin()))
                .andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders[0]").value("export ea-e6"))
                .andExpect(jsonPath("$.detail").value(containsString("export ea-e6")));
        mvc.perform(get("/api/v1/exports/ea-e6").with(admin())).andExpect(jsonPath("$.state.actual").value("active"));
        mvc.perform(get("/api/v1/disks/ea-d6").with(admin())).andExpect(status().isOk());
    }

    @Test
    void forcedDiskDeletionDropsItsExportsAndDisconnectsTheirClients() throws Exception {
        disk("ea-d7");
        mvc.perform(createExport("{\"name\":\"ea-e7a\",\"device\":\"ea-d7\"}")).andExpect(status().isCreated());
        mvc.perform(createExport("{\"name\":\"ea-e7b\",\"device\":\"ea-d7\",\"readOnly\":true}"))
                .andExpect(status().isCreated());
        try (RawNbdClient connected = client("ea-e7a")) {
            mvc.perform(delete("/api/v1/disks/ea-d7").with(admin()).param("force", "true"))
                    .andExpect(status().isNoContent());
            assertThat(connected.closedAfterDraining()).isTrue();
        }
        mvc.perform(get("/api/v1/exports/ea-e7a").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/exports/ea-e7b").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/disks/ea-d7").with(admin())).andExpect(problem(404, "not-found"));
        try (RawNbdClient late = RawNbdClient.connect(port()).greet()) {
            assertThat(late.tryGo("ea-e7a").getLast().kind()).isEqualTo(OptionReply.ERR_UNKNOWN);
        }
    }

    @Test
    void forceDoesNotRemoveHoldersOtherThanExports() throws Exception {
        disk("ea-d8");
        mvc.perform(createExport("{\"name\":\"ea-e8\",\"device\":\"ea-d8\",\"readOnly\":true}"))
                .andExpect(status().isCreated());
        Holder table = new Holder("dm", "md-ea8");
        registry.claim("ea-d8", table, Claim.TABLE);
        try {
            mvc.perform(delete("/api/v1/disks/ea-d8").with(admin()).param("force", "true"))
                    .andExpect(problem(409, "device-busy"))
                    .andExpect(jsonPath("$.detail").value(containsString("dm md-ea8")))
                    .andExpect(jsonPath("$.holders.length()").value(2));
            mvc.perform(get("/api/v1/exports/ea-e8").with(admin()))
                    .andExpect(jsonPath("$.state.actual").value("active"));
            try (RawNbdClient c = client("ea-e8")) {
                assertThat(c.read(1, 0, 512).error()).isZero();
            }
        } finally {
            registry.release("ea-d8", table);
        }
        mvc.perform(get("/api/v1/devices/ea-d8").with(admin()))
                .andExpect(jsonPath("$.holders[0]").value("export ea-e8"));
    }

    @Test
    void forceOnADiskWithoutHoldersIsAPlainDelete() throws Exception {
        disk("ea-d9");
        mvc.perform(delete("/api/v1/disks/ea-d9").with(admin()).param("force", "true"))
                .andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/disks/ea-d9").with(admin())).andExpect(problem(404, "not-found"));
    }

    @Test
    void viewersMayListButNotChangeExports() throws Exception {
        disk("ea-d10");
        mvc.perform(post("/api/v1/exports").with(viewer()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"ea-d10\"}")).andExpect(problem(403, "forbidden"));
        mvc.perform(createExport("{\"device\":\"ea-d10\"}")).andExpect(status().isCreated());
        mvc.perform(delete("/api/v1/exports/ea-d10").with(viewer())).andExpect(problem(403, "forbidden"));
        mvc.perform(get("/api/v1/exports/ea-d10").with(viewer())).andExpect(status().isOk());
        mvc.perform(get("/api/v1/exports")).andExpect(problem(401, "unauthenticated"));
    }

    @Test
    void bytesWrittenOverNbdAreTheDevicesBytes() throws Exception {
        disk("ea-d11");
        mvc.perform(createExport("{\"device\":\"ea-d11\"}")).andExpect(status().isCreated());
        byte[] data = new byte[8192];
        Arrays.fill(data, (byte) 0x5a);
        try (RawNbdClient c = client("ea-d11")) {
            assertThat(c.write(1, 65536, data, 0).error()).isZero();
        }
        byte[] back = mvc.perform(get("/api/v1/devices/ea-d11/data").with(admin())
                        .param("offset", "65536").param("length", "8192"))
                .andExpect(status().isOk()).andReturn().getResponse().getContentAsByteArray();
        assertThat(back).isEqualTo(data);
    }
}
