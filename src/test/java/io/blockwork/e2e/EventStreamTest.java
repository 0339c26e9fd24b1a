package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.e2e.SseStream.Frame;
import io.blockwork.nbd.RawNbdClient;
import io.blockwork.shared.event.Event;
import io.blockwork.shared.event.EventHub;
import io.blockwork.shared.event.EventKind;
import io.blockwork.shared.event.EventType;
import io.blockwork.export.app.NbdServerLifecycle;
import io.blockwork.support.TempDataDir;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ContextConfiguration;

/**
 * Issue 15, acceptance 2: the event stream over real HTTP. An array's life (create, a member
 * failed, a spare added and rebuilt) is told in order with progress during the recovery;
 * reconnecting with Last-Event-ID gets exactly the events missed; a consumer that never reads
 * stalls neither I/O nor the other consumers and is cut off with a final event.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "blockwork.events.queue-size=64", "blockwork.events.heartbeat=300ms"})
@ContextConfiguration(initializers = TempDataDir.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("api")
class EventStreamTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String ADMIN = basic("admin", TempDataDir.ADMIN_PASSWORD);
    private static final String VIEWER = basic("viewer", TempDataDir.VIEWER_PASSWORD);

    @LocalServerPort
    int port;

    @Autowired
    EventHub hub;

    @Autowired
    NbdServerLifecycle nbd;

    private ServiceClient api;
    private String base;

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @BeforeAll
    void start() {
        base = "http://127.0.0.1:" + port;
        api = new ServiceClient(base);
    }

    @AfterAll
    void stop() {
        api.close();
    }

    private void created(String path, String json) throws Exception {
        var r = api.postJson(path, json);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    private void memoryDisk(String name, String size) throws Exception {
        created("/api/v1/disks", "{\"name\":\"" + name + "\",\"type\":\"memory\",\"size\":\"" + size + "\"}");
    }

    private static boolean is(Frame f, String type, String object) {
        return f.type().equals(type) && object.equals(f.object());
    }

    @Test
    void anArraysLifeIsToldInOrderWithProgressDuringTheRecovery() throws Exception {
        for (String d : new String[] {"ev-d1", "ev-d2", "ev-d3"}) {
            memoryDisk(d, "16MiB");
        }
        try (SseStream s = SseStream.open(base, "/api/v1/events?object=ev-md", VIEWER, null)) {
            assertThat(s.status).isEqualTo(200);
            // 16 MiB at 4 MiB/s: a recovery of about four seconds, so several progress events
            created("/api/v1/arrays", "{\"name\":\"ev-md\",\"level\":\"raid1\",\"members\":[\"ev-d1\",\"ev-d2\"],"
                    + "\"assumeClean\":true,\"speedLimits\":{\"min\":\"4MiB\",\"max\":\"4MiB\"}}");
            assertThat(api.post("/api/v1/arrays/ev-md/members/ev-d2/fail").statusCode()).isEqualTo(200);
            assertThat(api.postJson("/api/v1/arrays/ev-md/members", "{\"device\":\"ev-d3\"}").statusCode()).isEqualTo(200);

            List<Frame> seen = s.until(WAIT, f -> !f.comment(), f -> is(f, "state", "ev-md") && "ok".equals(f.json("$.state")));
            List<String> story = seen.stream().map(f -> f.type() + " " + f.json("$.kind") + " " + f.object()
                    + (f.data().contains("\"state\":") ? " " + f.json("$.state") : "")).toList();
            assertThat(story).as("the events, in order").containsSubsequence(
                    "created array ev-md",
                    "failed member ev-d2 faulty",
                    "state array ev-md degraded",
                    "state array ev-md recovering",
                    "progress array ev-md",
                    "progress array ev-md",
                    "ended array ev-md",
                    "state array ev-md ok");
            assertThat(story).contains("created member ev-d1 in_sync", "created member ev-d2 in_sync",
                    "changed member ev-d2 faulty");
            // the spare is taken into the slot in the same transaction as it is added: created rebuilding
            assertThat(story).containsAnyOf("created member ev-d3 spare", "created member ev-d3 rebuilding");
            Frame degraded = seen.stream().filter(f -> is(f, "state", "ev-md")).findFirst().orElseThrow();
            assertThat(degraded.<String>json("$.reason")).contains("1 of 2 members in sync", "ev-d2 faulty");
            List<Frame> progress = seen.stream().filter(f -> is(f, "progress", "ev-md")).toList();
            assertThat(progress).allSatisfy(f -> {
                assertThat(SseStream.data(f)).containsEntry("action", "recover").containsEntry("target", "ev-d3");
                assertThat(SseStream.data(f)).containsKeys("doneBytes", "totalBytes", "percent");
            });
            Map<String, Object> running = SseStream.data(progress.getLast());
            assertThat(running).containsKeys("speedBytesPerSecond", "etaSeconds");
            Frame ended = seen.stream().filter(f -> is(f, "ended", "ev-md")).findFirst().orElseThrow();
            assertThat(SseStream.data(ended)).containsEntry("completed", true);
            // ids only go up
            List<Long> ids = seen.stream().map(Frame::id).toList();
            assertThat(ids).isSorted().doesNotHaveDuplicates();
        }
    }

    @Test
    void reconnectingWithLastEventIdReceivesExactlyTheEventsMissed() throws Exception {
        long lastSeen;
        try (SseStream s = SseStream.open(base, "/api/v1/events?kinds=disk", ADMIN, null)) {
            memoryDisk("ev-r1", "1MiB");
            lastSeen = s.next(WAIT, f -> is(f, "created", "ev-r1")).id();
        }
        memoryDisk("ev-r2", "1MiB");
        memoryDisk("ev-r3", "1MiB");
        assertThat(api.send("DELETE", "/api/v1/disks/ev-r1")).isEqualTo(204);

        String missed = api.get("/api/v1/events/recent?kinds=disk&after=" + lastSeen).body();
        List<Long> missedIds = JsonPath.<List<Number>>read(missed, "$[*].id").stream().map(Number::longValue).toList();
        assertThat(missedIds).hasSize(3);
        try (SseStream s = SseStream.open(base, "/api/v1/events?kinds=disk", ADMIN, lastSeen)) {
            List<Frame> got = List.of(s.next(WAIT), s.next(WAIT), s.next(WAIT));
            assertThat(got).extracting(f -> f.type() + " " + f.object())
                    .containsExactly("created ev-r2", "created ev-r3", "deleted ev-r1");
            assertThat(got).extracting(Frame::id).containsExactlyElementsOf(missedIds);
            // nothing more was missed: the next event is a new one
            memoryDisk("ev-r4", "1MiB");
            assertThat(s.next(WAIT).object()).isEqualTo("ev-r4");
        }
        // an id older than anything kept (or from another run) starts with a reset
        try (SseStream s = SseStream.open(base, "/api/v1/events", ADMIN, 1L)) {
            Frame reset = s.next(WAIT);
            assertThat(reset.type()).isEqualTo("reset");
            assertThat(reset.<String>json("$.reason")).contains("reload the state");
            assertThat(reset.id()).isEqualTo(hub.lastId());
        }
    }

    @Test
    void aConsumerThatNeverReadsStallsNeitherIoNorOtherConsumersAndIsCutOff() throws Exception {
        memoryDisk("ev-io", "64MiB");
        long droppedBefore = hub.droppedConsumers();
        try (Socket stuck = new Socket();
             SseStream healthy = SseStream.open(base, "/api/v1/events?kinds=disk", VIEWER, null)) {
            // A consumer that sends its request and never reads a byte of the answer.
            stuck.setReceiveBufferSize(4096);
            stuck.connect(new InetSocketAddress("127.0.0.1", port));
            OutputStream out = stuck.getOutputStream();
            out.write(("GET /api/v1/events?kinds=disk HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + VIEWER
                    + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            org.awaitility.Awaitility.await().atMost(WAIT).until(() -> hub.consumers() == 2);

            // Meanwhile, block I/O goes on through the data API: none of it may wait for the stuck consumer.
            AtomicBoolean flooding = new AtomicBoolean(true);
            AtomicLong writes = new AtomicLong();
            AtomicLong slowestNanos = new AtomicLong();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                byte[] block = new byte[4096];
                try (ServiceClient io = new ServiceClient(base)) {
                    while (flooding.get()) {
                        long t = System.nanoTime();
                        int status = io.put("/api/v1/devices/ev-io/data?offset=" + (writes.get() % 1000) * 4096, block)
                                .statusCode();
                        assertThat(status).isEqualTo(204);
                        slowestNanos.accumulateAndGet(System.nanoTime() - t, Math::max);
                        writes.incrementAndGet();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });

            // 20,000 events of 1 KiB, 20 MB: far more than socket buffers hold, in bursts the reading
            // consumer keeps up with (its queue holds 64).
            String payload = "x".repeat(1024);
            int n = 20_000;
            List<Long> ids = new ArrayList<>();
            List<Integer> received = new ArrayList<>();
            for (int i = 0; i < n; i += 32) {
                for (int j = i; j < Math.min(n, i + 32); j++) {
                    Event e = hub.publish(Event.Draft.of(EventType.CHANGED, EventKind.DISK, "ev-flood")
                            .data(Map.of("n", j, "padding", payload)));
                    ids.add(e.id());
                }
                while (received.size() < Math.min(n, i + 32)) {
                    Frame f = healthy.next(WAIT, x -> !x.comment() && "ev-flood".equals(x.object()));
                    assertThat(f.id()).isEqualTo(ids.get(received.size()));
                    received.add(((Number) SseStream.data(f).get("n")).intValue());
                }
            }
            long writesDuringFlood = writes.get();
            flooding.set(false);
            writer.join();

            // the reading consumer got every event, in order, none missing
            assertThat(received).hasSize(n);
            for (int i = 0; i < n; i++) {
                assertThat(received.get(i)).isEqualTo(i);
            }
            // the stuck one was cut off, and only it; I/O kept flowing all along
            assertThat(hub.droppedConsumers()).isEqualTo(droppedBefore + 1);
            assertThat(hub.consumers()).isEqualTo(1);
            assertThat(writesDuringFlood).isPositive();
            assertThat(slowestNanos.get()).as("no write waited for the stuck consumer").isLessThan(Duration.ofSeconds(10).toNanos());

            // once it reads after all, it finds what the socket buffers held, then the final event
            InputStream in = stuck.getInputStream();
            stuck.setSoTimeout((int) WAIT.toMillis());
            ByteArrayOutputStream tail = new ByteArrayOutputStream();
            byte[] buf = new byte[65536];
            int r;
            while ((r = in.read(buf)) > 0) {
                tail.write(buf, 0, r);
                if (tail.size() > 256 && new String(buf, 0, r, StandardCharsets.UTF_8).contains("event: dropped")) {
                    break;
                }
            }
            String text = tail.toString(StandardCharsets.UTF_8);
            assertThat(text).contains("event: dropped", "fell 64 events behind");
            assertThat(text.length()).as("what reached it is bounded by buffers, not the flood").isLessThan(n * 1024);
        }
    }

    @Test
    void filtersHeartbeatsAndCredentials() throws Exception {
        try (SseStream anonymous = SseStream.open(base, "/api/v1/events", null, null)) {
            assertThat(anonymous.status).isEqualTo(401);
        }
        var bad = api.get("/api/v1/events/recent?kinds=disk,volcano");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("\"field\":\"kinds\"", "volcano");
        try (SseStream s = SseStream.open(base, "/api/v1/events?kinds=array,volcano", ADMIN, null)) {
            assertThat(s.status).isEqualTo(400);
        }
        try (SseStream s = SseStream.open(base, "/api/v1/events?object=ev-f2", VIEWER, null)) {
            // an idle stream gets heartbeat comments
            assertThat(s.next(WAIT, f -> f.comment() && f.data().equals("heartbeat"))).isNotNull();
            memoryDisk("ev-f1", "1MiB");
            memoryDisk("ev-f2", "1MiB");
            assertThat(s.next(WAIT).object()).as("only events about ev-f2").isEqualTo("ev-f2");
        }
    }

    private static String story(Frame f) {
        return f.type() + " " + f.json("$.kind") + " " + f.object();
    }

    @Test
    void everyKindOfObjectIsToldFromDisksToExportsAndTheirClients() throws Exception {
        try (SseStream s = SseStream.open(base, "/api/v1/events?kinds=disk,array,member,dm,pool,volume,snapshot,export,"
                + "workload", VIEWER, null)) {
            List<Frame> seen = new ArrayList<>();
            for (String d : new String[] {"ek-r0", "ek-r1", "ek-r2", "ek-lwd", "ek-lwl", "ek-pv", "ek-w"}) {
                memoryDisk(d, "16MiB");
            }
            created("/api/v1/arrays", "{\"name\":\"ek-r5\",\"level\":\"raid5\",\"members\":[\"ek-r0\",\"ek-r1\","
                    + "\"ek-r2\"],\"assumeClean\":true}");
            created("/api/v1/dm/devices", "{\"name\":\"ek-lw\",\"table\":\"0 32768 log-writes ek-lwd ek-lwl\"}");
            created("/api/v1/pools", "{\"name\":\"ek-p\",\"device\":\"ek-pv\",\"extentSize\":\"1MiB\"}");
            created("/api/v1/pools/ek-p/volumes", "{\"name\":\"ek-v\",\"size\":\"4MiB\"}");
            created("/api/v1/pools/ek-p/volumes/ek-v/snapshots", "{\"name\":\"ek-s\",\"size\":\"2MiB\"}");
            created("/api/v1/exports", "{\"device\":\"ek-v\"}");
            try (RawNbdClient client = RawNbdClient.connect(nbd.endpoint().orElseThrow().port()).greet().go("ek-v")) {
                assertThat(client.exportSize).isEqualTo(4L << 20);
                seen.addAll(s.until(WAIT, f -> !f.comment(), f -> is(f, "connected", "ek-v")));
            }
            var workload = api.postJson("/api/v1/workloads", "{\"device\":\"ek-w\",\"rw\":\"randwrite\",\"io\":\"1MiB\"}");
            assertThat(workload.statusCode()).as(workload.body()).isEqualTo(201);
            String workloadId = String.valueOf(JsonPath.<Integer>read(workload.body(), "$.id"));
            seen.addAll(s.until(WAIT, f -> !f.comment(), f -> is(f, "ended", workloadId)));
            assertThat(api.send("DELETE", "/api/v1/exports/ek-v")).isEqualTo(204);
            assertThat(api.send("DELETE", "/api/v1/pools/ek-p/volumes/ek-v/snapshots/ek-s")).isEqualTo(204);
            assertThat(api.send("DELETE", "/api/v1/pools/ek-p/volumes/ek-v")).isEqualTo(204);
            assertThat(api.send("DELETE", "/api/v1/pools/ek-p")).isEqualTo(204);
            assertThat(api.send("DELETE", "/api/v1/dm/devices/ek-lw")).isEqualTo(204);
            assertThat(api.send("DELETE", "/api/v1/arrays/ek-r5")).isEqualTo(204);

            seen.addAll(s.until(WAIT, f -> !f.comment(), f -> is(f, "deleted", "ek-r5")));
            List<String> story = seen.stream().map(EventStreamTest::story).toList();
            assertThat(story).as("every kind, in the order it happened").containsSubsequence(
                    "created disk ek-r0",
                    "created array ek-r5",
                    "created dm ek-lw",
                    "created pool ek-p",
                    "created volume ek-v",
                    "created snapshot ek-s",
                    "created export ek-v",
                    "connected export ek-v",
                    "disconnected export ek-v",
                    "created workload " + workloadId,
                    "ended workload " + workloadId,
                    "deleted export ek-v",
                    "deleted snapshot ek-s",
                    "deleted volume ek-v",
                    "deleted pool ek-p",
                    "deleted dm ek-lw",
                    "deleted array ek-r5");
            assertThat(story).contains("created member ek-r0", "created member ek-r1", "created member ek-r2",
                    "deleted member ek-r2", "progress workload " + workloadId);
        }
    }

    @Test
    void aSnapshotsFillIsToldAtEachThresholdAndAMergeWithProgressAndItsEnd() throws Exception {
        memoryDisk("ef-pv", "64MiB");
        created("/api/v1/pools", "{\"name\":\"ef-p\",\"device\":\"ef-pv\",\"extentSize\":\"1MiB\"}");
        created("/api/v1/pools/ef-p/volumes", "{\"name\":\"ef-v\",\"size\":\"8MiB\"}");
        created("/api/v1/pools/ef-p/volumes/ef-v/snapshots", "{\"name\":\"ef-s\",\"size\":\"1MiB\"}");
        created("/api/v1/pools/ef-p/volumes", "{\"name\":\"ef-m\",\"size\":\"8MiB\"}");
        created("/api/v1/pools/ef-p/volumes/ef-m/snapshots", "{\"name\":\"ef-ms\",\"size\":\"4MiB\"}");
        byte[] block = new byte[4096];
        try (SseStream s = SseStream.open(base, "/api/v1/events?kinds=snapshot", VIEWER, null)) {
            // one new 4 KiB chunk at a time; each threshold crossed is awaited before the next write, so
            // the once-a-second watch sees every one of them on its own
            List<Integer> thresholds = new ArrayList<>();
            for (int i = 0; thresholds.size() < 4 && i < 2048; i++) {
                assertThat(api.put("/api/v1/devices/ef-v/data?offset=" + i * 4096L, block).statusCode()).isEqualTo(204);
                String snap = api.get("/api/v1/pools/ef-p/volumes/ef-v/snapshots/ef-s").body();
                Number fill = JsonPath.read(snap, "$.fillPercent");
                String state = JsonPath.read(snap, "$.state");
                int next = new int[] {50, 80, 95, 100}[thresholds.size()];
                if (fill != null && fill.doubleValue() >= next || !"active".equals(state)) {
                    Frame f = s.next(WAIT, x -> is(x, "fill", "ef-s"));
                    thresholds.add(((Number) SseStream.data(f).get("threshold")).intValue());
                }
            }
            assertThat(thresholds).containsExactly(50, 80, 95, 100);

            // 64 chunks changed under ef-ms, none next to another (a merge step copies a run of consecutive
            // chunks), then merged back through a disk slowed to 20 ms an I/O: a step reads, writes and
            // commits, so the merge runs for seconds and its progress is told while it copies
            for (int i = 0; i < 64; i++) {
                assertThat(api.put("/api/v1/devices/ef-m/data?offset=" + i * 8192L, block).statusCode()).isEqualTo(204);
            }
            var slow = api.send("PATCH", "/api/v1/disks/ef-pv", "application/json",
                    "{\"latency\":{\"read\":\"20ms\",\"write\":\"20ms\"}}");
            assertThat(slow.statusCode()).as(slow.body()).isEqualTo(200);
            assertThat(api.post("/api/v1/pools/ef-p/volumes/ef-m/snapshots/ef-ms/merge").statusCode()).isEqualTo(202);
            List<Frame> merge = s.until(WAIT, f -> is(f, "progress", "ef-ms") || is(f, "ended", "ef-ms"),
                    f -> is(f, "ended", "ef-ms"));
            assertThat(merge).extracting(Frame::type).hasSizeGreaterThanOrEqualTo(3).first().isEqualTo("progress");
            assertThat(SseStream.data(merge.getFirst())).containsEntry("action", "merge").containsEntry("phase", "started")
                    .containsEntry("exceptionsAtStart", 64).containsEntry("percent", 0.0);
            assertThat(merge.subList(1, merge.size() - 1)).as("progress while it copies, at most once a second")
                    .isNotEmpty().allSatisfy(f -> assertThat(SseStream.data(f)).containsEntry("phase", "running"));
            assertThat(SseStream.data(merge.getLast())).containsEntry("completed", true);
            assertThat(merge.getLast().<String>json("$.parent")).isEqualTo("ef-m");
        } finally {
            api.send("PATCH", "/api/v1/disks/ef-pv", "application/json", "{\"latency\":{\"read\":\"0s\",\"write\":\"0s\"}}");
        }
    }
}
