package io.blockwork.disk.web;

import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.createDisk;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.hasItems;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.patch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.nbd.NbdFixture;
import io.blockwork.support.AppTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Disks of type {@code nbd} over REST, against an NBD server in the test (Blockwork's own, on a
 * free loopback port): create takes the export's size, the disk shows its link, I/O reaches the
 * server, bad input names its field and changes nothing; and md's write-mostly on such a leg.
 */
@AppTest
class NbdDiskApiTest {

    private static final int MIB = 1 << 20;

    @Autowired
    MockMvc mvc;

    @Test
    void anNbdDiskTakesTheExportsSizeShowsItsLinkAndCarriesIo() throws Exception {
        Disk far = Disk.memory("far", 8 * MIB, DiskConfig.DEFAULT);
        try (NbdFixture server = new NbdFixture().export("far", far)) {
            mvc.perform(createDisk("{\"name\":\"nd-1\",\"type\":\"nbd\",\"uri\":\"" + server.uri("far") + "\"}"))
                    .andExpect(status().isCreated())
                    .andExpect(jsonPath("$.type").value("nbd"))
                    .andExpect(jsonPath("$.sizeBytes").value(8 * MIB))
                    .andExpect(jsonPath("$.uri").value(server.uri("far")))
                    .andExpect(jsonPath("$.connections").value(1))
                    .andExpect(jsonPath("$.keepsData").value(true))
                    .andExpect(jsonPath("$.remote.state").value("connected"))
                    .andExpect(jsonPath("$.remote.serverFlags", hasItems("flush", "fua", "trim", "multi-conn")))
                    .andExpect(jsonPath("$.node").isString());
            byte[] data = new byte[64 * 1024];
            new Random(3).nextBytes(data);
            mvc.perform(writeData("nd-1", 4096, data)).andExpect(status().isNoContent());
            mvc.perform(readData("nd-1", 4096, data.length)).andExpect(content().bytes(data));
            byte[] onServer = new byte[data.length];
            io.blockwork.engine.block.SyncIo.read(far, 4096, java.lang.foreign.MemorySegment.ofArray(onServer));
            assertThat(onServer).isEqualTo(data);

            mvc.perform(patch("/api/v1/disks/nd-1").with(admin()).contentType(MediaType.APPLICATION_JSON)
                    .content("{\"queueDepth\":2}")).andExpect(problem(409, "not-supported"));
            mvc.perform(post("/api/v1/disks/nd-1/power-cut").with(admin())).andExpect(problem(409, "not-supported"));

            mvc.perform(delete("/api/v1/disks/nd-1").with(admin())).andExpect(status().isNoContent());
            await().atMost(Duration.ofSeconds(20)).until(() -> server.server.clients("far").isEmpty());
        }
    }

    @Test
    void badInputNamesItsFieldAndCreatesNothing() throws Exception {
        try (NbdFixture server = new NbdFixture().export("small", Disk.memory("small", MIB, DiskConfig.DEFAULT))) {
            mvc.perform(createDisk("{\"name\":\"nd-bad\",\"type\":\"nbd\"}"))
                    .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("uri"));
            mvc.perform(createDisk("{\"name\":\"nd-bad\",\"type\":\"memory\",\"size\":\"1MiB\",\"uri\":\"nbd://h/e\"}"))
                    .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("uri"));
            mvc.perform(createDisk("{\"name\":\"nd-bad\",\"type\":\"nbd\",\"uri\":\"http://h/e\"}"))
                    .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("uri"));
            mvc.perform(createDisk("{\"name\":\"nd-bad\",\"type\":\"nbd\",\"uri\":\"" + server.uri("small")
                    + "\",\"connections\":0}")).andExpect(problem(400, "validation-failed"))
                    .andExpect(jsonPath("$.field").value("connections"));
            mvc.perform(createDisk("{\"name\":\"nd-bad\",\"type\":\"nbd\",\"uri\":\"" + server.uri("small")
                    + "\",\"size\":\"2MiB\"}")).andExpect(problem(400, "validation-failed"))
                    .andExpect(jsonPath("$.field").value("size"));
            mvc.perform(createDisk("{\"name\":\"nd-bad\",\"type\":\"nbd\",\"uri\":\"" + server.uri("nope") + "\"}"))
                    .andExpect(problem(502, "remote-unavailable")).andExpect(jsonPath("$.field").value("uri"))
                    .andExpect(jsonPath("$.detail").value(org.hamcrest.Matchers.containsString("nope")));
            mvc.perform(createDisk("{\"name\":\"nd-bad\",\"type\":\"nbd\",\"uri\":\"nbd+unix:///e?socket=/nonexistent.sock\"}"))
                    .andExpect(problem(502, "remote-unavailable"));
            mvc.perform(get("/api/v1/disks/nd-bad").with(admin())).andExpect(status().isNotFound());
            mvc.perform(get("/api/v1/devices/nd-bad").with(admin())).andExpect(status().isNotFound());
        }
    }

    @Test
    void aSilentServerDoesNotHoldUpOtherOperationsWhileTheDiskConnects() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             ExecutorService pool = Executors.newSingleThreadExecutor()) {
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return silent.accept(); // and then never says a word: the handshake waits
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, pool);
            String uri = "nbd://127.0.0.1:" + silent.getLocalPort() + "/quiet";
            CompletableFuture<Integer> create = CompletableFuture.supplyAsync(() -> {
                try {
                    return mvc.perform(createDisk("{\"name\":\"nd-quiet\",\"type\":\"nbd\",\"uri\":\"" + uri + "\"}"))
                            .andReturn().getResponse().getStatus();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (Socket connection = accepted.get(20, TimeUnit.SECONDS)) {
                mvc.perform(memoryDisk("nd-meanwhile", "1MiB")).andExpect(status().isCreated());
                assertThat(create).as("the nbd disk is still in its handshake when the other disk is made").isNotDone();
            } // the server hangs up: the handshake fails at once
            assertThat(create.get(20, TimeUnit.SECONDS)).isEqualTo(502);
            mvc.perform(get("/api/v1/disks/nd-quiet").with(admin())).andExpect(status().isNotFound());
            mvc.perform(delete("/api/v1/disks/nd-meanwhile").with(admin())).andExpect(status().isNoContent());
        }
    }

    @Test
    void writeMostlyKeepsReadsOnTheLocalLeg() throws Exception {
        try (NbdFixture server = new NbdFixture().export("leg", Disk.memory("leg", 4 * MIB, DiskConfig.DEFAULT))) {
            mvc.perform(memoryDisk("nd-local", "4MiB")).andExpect(status().isCreated());
            mvc.perform(createDisk("{\"name\":\"nd-remote\",\"type\":\"nbd\",\"uri\":\"" + server.uri("leg") + "\"}"))
                    .andExpect(status().isCreated());
            mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                    .content("{\"name\":\"nd-md\",\"level\":\"raid1\",\"members\":[\"nd-local\",\"nd-remote\"],"
                            + "\"writeMostly\":[\"nd-local2\"],\"assumeClean\":true}"))
                    .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("writeMostly[0]"));
            mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                    .content("{\"name\":\"nd-md\",\"level\":\"raid1\",\"members\":[\"nd-local\",\"nd-remote\"],"
                            + "\"writeMostly\":[\"nd-remote\"],\"assumeClean\":true}"))
                    .andExpect(status().isCreated())
                    .andExpect(jsonPath("$.members[?(@.device=='nd-remote')].writeMostly").value(true))
                    .andExpect(jsonPath("$.members[?(@.device=='nd-local')].writeMostly").value(false));
            long before = remoteReads();
            for (int i = 0; i < 32; i++) {
                mvc.perform(readData("nd-md", (long) i * 65536, 65536)).andExpect(status().isOk());
            }
            assertThat(remoteReads()).as("reads of a write-mostly leg").isEqualTo(before);

            mvc.perform(post("/api/v1/arrays/nd-md/members/nd-remote/write-mostly").with(admin())
                    .contentType(MediaType.APPLICATION_JSON).content("{\"enabled\":false}"))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.members[?(@.device=='nd-remote')].writeMostly").value(false));
            for (int i = 0; i < 32; i++) {
                mvc.perform(readData("nd-md", (long) i * 65536, 65536)).andExpect(status().isOk());
            }
            assertThat(remoteReads()).as("reads are spread again").isGreaterThan(before);
            mvc.perform(post("/api/v1/arrays/nd-md/members/nd-nope/write-mostly").with(admin())
                    .contentType(MediaType.APPLICATION_JSON).content("{\"enabled\":true}"))
                    .andExpect(status().is4xxClientError());
            mvc.perform(delete("/api/v1/arrays/nd-md").with(admin())).andExpect(status().isNoContent());
            mvc.perform(delete("/api/v1/disks/nd-remote").with(admin())).andExpect(status().isNoContent());
            mvc.perform(delete("/api/v1/disks/nd-local").with(admin())).andExpect(status().isNoContent());
        }
    }

    private long remoteReads() throws Exception {
        String body = mvc.perform(get("/api/v1/disks/nd-remote").with(admin())).andReturn().getResponse().getContentAsString();
        return ((Number) io.blockwork.nbd.Json.at(io.blockwork.nbd.Json.parse(body), "stats", "reads")).longValue();
    }
}
