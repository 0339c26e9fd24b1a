package io.blockwork.shared.openapi;

import static org.awaitility.Awaitility.await;

import io.blockwork.e2e.RunningService;
import io.blockwork.e2e.ServiceClient;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.md.MdArrays;
import io.blockwork.nbd.Json;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.support.FreePort;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The objects the REST fuzzer aims at, one of every kind (disks, a pool with a volume and its
 * snapshot, a thin pool with a thin volume and its snapshot, a raid1, a mapped device, an export), what it calls the service's state, and how it
 * puts the fixture back after a request that changed it: everything the fuzzer created goes,
 * everything it deleted or changed comes back as it was, so every request meets the same world.
 */
final class FuzzFixture {

    static final List<String> DISKS = List.of("fz-d0", "fz-d1", "fz-d2", "fz-d3", "fz-pd", "fz-a0", "fz-a1", "fz-td",
            "fz-tm");
    /**
     * Disks larger than 1 MiB: the pool's, the thin pool's data, and the array's members and the
     * disk that may join it (md's v1.2 metadata puts the data 1 MiB in).
     */
    private static final Map<String, String> SIZES = Map.of("fz-pd", "16MiB", "fz-td", "4MiB", "fz-a0", "4MiB",
            "fz-a1", "4MiB", "fz-d3", "4MiB");
    private static final String FILE_DISK = "fz-f0";
    private static final String WRITEBACK_DISK = "fz-wb";
    /** mdstat's bitmap pages: the bitmap daemon changes them on its own timer. */
    private static final Pattern BITMAP_PAGES = Pattern.compile("bitmap: \\d+/\\d+ pages \\[\\d+KB\\]");
    private static final List<String> DEVICES = List.of("fz-d0", "fz-d1", "fz-d3", "fz-f0", "fz-wb", "fz-pd", "fz-a0",
            "fz-md", "fz-dm", "fz-v", "fz-s", "fz-v-real", "fz-s-cow", "fz-td", "fz-tv", "fz-ts", "fz-none");

    private final ServiceClient api;
    private final DeviceRegistry registry;
    private final JdbcTemplate jdbc;
    private final MdArrays arrays;
    private final List<String> tables;
    /** A loopback port that was free when the fixture was made: nbd disks aimed at it are refused. */
    private final int closedPort = FreePort.loopback();
    /** A fixture disk's settings as made ({@link #diskSettings}). */
    private String defaultDiskSettings;
    /** The state right after {@link #create} or the last {@link #restore}: nothing to put back. */
    private String pristine;

    FuzzFixture(RunningService service) {
        this.api = service.client();
        this.registry = service.bean(DeviceRegistry.class);
        this.jdbc = service.bean(JdbcTemplate.class);
        this.arrays = service.bean(MdArrays.class);
        // not the node lease: its heartbeat moves every few seconds whatever the requests do
        this.tables = jdbc.queryForList("SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC'"
                + " AND LOWER(TABLE_NAME) NOT IN ('flyway_schema_history', 'nodes') ORDER BY TABLE_NAME", String.class);
    }

    /* ---- remote servers ---- */

    /**
     * A plausible NBD URI for an nbd disk that no server answers, on this host only: a loopback port
     * nobody listens on (refused at once) or a Unix socket that does not exist.
     */
    String remoteUri(Random random) {
        return random.nextBoolean() ? "nbd://127.0.0.1:" + closedPort + "/vol0"
                : "nbd+unix:///vol0?socket=/nonexistent/fz.sock";
    }

    /* ---- names ---- */

    /** A name for path parameter {@code param} of {@code path}: mostly an object of the fixture. */
    String nameFor(String path, String param, Random random) {
        if (random.nextInt(8) == 0) {
            return "fz-none";
        }
        List<String> candidates = switch (param) {
            case "pool" -> List.of("fz-p", "fz-tp");
            case "volume" -> List.of("fz-v", "fz-tv");
            case "member" -> List.of("fz-a0", "fz-a1", "fz-d3");
            case "code" -> List.of("not-found", "device-busy", "x");
            default -> {
                if (path.startsWith("/api/v1/disks")) {
                    yield List.of("fz-d0", "fz-d1", FILE_DISK, WRITEBACK_DISK, "fz-pd");
                } else if (path.startsWith("/api/v1/arrays")) {
                    yield List.of("fz-md");
                } else if (path.startsWith("/api/v1/dm")) {
                    yield List.of("fz-dm");
                } else if (path.startsWith("/api/v1/exports")) {
                    yield List.of("fz-e");
                } else if (path.contains("/snapshots/")) {
                    yield List.of("fz-s", "fz-ts");
                } else if (path.contains("/volumes/")) {
                    yield List.of("fz-v", "fz-tv");
                } else if (path.startsWith("/api/v1/pools")) {
                    yield List.of("fz-p", "fz-tp");
                }
                yield DEVICES;
            }
        };
        return candidates.get(random.nextInt(candidates.size()));
    }

    /** A value for a name field of a body: a new name for what is created, an existing device for what is used. */
    String bodyName(String field, Random random, Supplier<String> fresh) {
        if ((field.equals("name") || field.equals("newName")) && random.nextInt(4) > 0) {
            return fresh.get();
        }
        return DEVICES.get(random.nextInt(DEVICES.size()));
    }

    /* ---- the fixture ---- */

    /** Makes the fixture on an empty service: everything is missing. */
    void create() throws Exception {
        recreateMissing();
        settle();
        defaultDiskSettings = diskSettings(DISKS.getFirst());
        pristine = state();
    }

    /** The fixture's {@link #state} as made, or as last put back. */
    String pristine() {
        return pristine;
    }

    /** Whether {@code state} is the fixture as made or last put back: then there is nothing to put back. */
    boolean isPristine(String state) {
        return state.equals(pristine);
    }

    /**
     * After a request that changed something: removes what the fuzzer made, puts back what it
     * removed or changed. Ends with the service idle (no resync, check or merge running).
     */
    void restore() throws Exception {
        forgetRuns(); // first, so that no workload runs on what is deleted next
        // what there is comes from the service's own tables and registry: a listing over HTTP per
        // kind of object cost more than the requests being checked
        for (String e : names("SELECT name FROM exports")) {
            if (!"fz-e".equals(e)) {
                ok(api.delete("/api/v1/exports/" + FuzzRequests.encode(e)));
            }
        }
        for (String dm : names("SELECT name FROM dm_devices")) {
            if (!"fz-dm".equals(dm)) {
                ok(api.delete("/api/v1/dm/devices/" + FuzzRequests.encode(dm) + "?force=true"));
            }
        }
        // before the arrays: a table loaded into fz-dm holds what it names (as dm_get_device does), so an
        // array it names could not be deleted; cleared before the resume, which would swap it in
        Optional<MappedDevice> dm = registry.find("fz-dm", MappedDevice.class);
        if (dm.isPresent() && !dm.get().inactiveTableText().isEmpty()) {
            ok(api.delete("/api/v1/dm/devices/fz-dm/table/inactive"));
        }
        if (dm.isPresent() && dm.get().state() == DeviceInfo.State.SUSPENDED) {
            ok(api.post("/api/v1/dm/devices/fz-dm/resume"));
        }
        for (String a : names("SELECT name FROM arrays")) {
            if (!"fz-md".equals(a) || !intact(Json.parseObject(api.get("/api/v1/arrays/fz-md").body()))) {
                ok(api.delete("/api/v1/arrays/" + FuzzRequests.encode(a) + "?force=true"));
            }
        }
        for (Map<String, Object> v : jdbc.queryForList("SELECT v.name AS v, p.name AS p FROM thin_volumes v"
                + " JOIN thin_pools p ON p.id = v.thin_pool_id WHERE v.origin_id IS NULL AND v.name <> 'fz-tv'")) {
            // with its snapshots
            ok(api.delete("/api/v1/pools/" + FuzzRequests.encode((String) v.get("p")) + "/volumes/"
                    + FuzzRequests.encode((String) v.get("v")) + "?force=true"));
        }
        for (Map<String, Object> v : jdbc.queryForList("SELECT s.name AS s, v.name AS v, p.name AS p FROM thin_volumes s"
                + " JOIN thin_volumes v ON v.id = s.origin_id JOIN thin_pools p ON p.id = s.thin_pool_id"
                + " WHERE s.name <> 'fz-ts'")) {
            ok(api.delete("/api/v1/pools/" + FuzzRequests.encode((String) v.get("p")) + "/volumes/"
                    + FuzzRequests.encode((String) v.get("v")) + "/snapshots/" + FuzzRequests.encode((String) v.get("s"))
                    + "?force=true"));
        }
        for (String pool : names("SELECT name FROM thin_pools WHERE name <> 'fz-tp'")) {
            ok(api.delete("/api/v1/pools/" + FuzzRequests.encode(pool)));
        }
        for (Map<String, Object> v : jdbc.queryForList("SELECT v.name AS v, p.name AS p FROM volumes v"
                + " JOIN pools p ON p.id = v.pool_id WHERE v.name <> 'fz-v'")) {
            ok(api.delete("/api/v1/pools/" + FuzzRequests.encode((String) v.get("p")) + "/volumes/"
                    + FuzzRequests.encode((String) v.get("v")) + "?force=true"));
        }
        for (String snapshot : names("SELECT name FROM snapshots WHERE name <> 'fz-s'")) {
            // what is left after the volumes went are fz-v's
            ok(api.delete("/api/v1/pools/fz-p/volumes/fz-v/snapshots/" + FuzzRequests.encode(snapshot) + "?force=true"));
        }
        for (String pool : names("SELECT name FROM pools WHERE name <> 'fz-p'")) {
            ok(api.delete("/api/v1/pools/" + FuzzRequests.encode(pool)));
        }
        for (String d : names("SELECT name FROM disks")) {
            if (!DISKS.contains(d) && !FILE_DISK.equals(d) && !WRITEBACK_DISK.equals(d)) {
                ok(api.delete("/api/v1/disks/" + FuzzRequests.encode(d) + "?force=true"));
            } else if (!diskSettings(d).equals(defaultDiskSettings)) {
                ok(api.send("PATCH", "/api/v1/disks/" + d, "application/json", "{\"latency\":{\"read\":0,"
                        + "\"write\":0,\"flush\":0,\"jitter\":0},\"queueDepth\":0,\"faults\":{\"failReads\":false,"
                        + "\"failWrites\":false,\"failFlushes\":false}}"));
            }
        }
        recreateMissing();
        settle();
        // objects made again have new row ids and creation times: that is the fixture now
        pristine = state();
    }

    /**
     * Whether the array is as made: both members in sync and no sync running, paused or slowed
     * (a sync the fuzzer slowed to 1 KiB/s or paused would never end: the array is made again).
     */
    private static boolean intact(Object array) {
        return members(array).equals("fz-a0 in_sync,fz-a1 in_sync") && "idle".equals(Json.at(array, "sync", "action"))
                && Boolean.FALSE.equals(Json.at(array, "sync", "paused"));
    }

    private void recreateMissing() throws Exception {
        Set<String> have = registry.list().stream().map(RegisteredDevice::name).collect(Collectors.toSet());
        for (String d : DISKS) {
            if (!have.contains(d)) {
                ok(api.postJson("/api/v1/disks", "{\"name\":\"" + d + "\",\"type\":\"memory\",\"size\":\""
                        + SIZES.getOrDefault(d, "1MiB") + "\"}"));
            }
        }
        if (!have.contains(FILE_DISK)) {
            ok(api.postJson("/api/v1/disks", "{\"name\":\"" + FILE_DISK + "\",\"type\":\"file\",\"size\":\"1MiB\"}"));
        }
        if (!have.contains(WRITEBACK_DISK)) {
            ok(api.postJson("/api/v1/disks", "{\"name\":\"" + WRITEBACK_DISK + "\",\"type\":\"memory\",\"size\":\"1MiB\","
                    + "\"cache\":\"writeback\"}"));
        }
        if (names("SELECT name FROM pools WHERE name = 'fz-p'").isEmpty()) {
            ok(api.postJson("/api/v1/pools", "{\"name\":\"fz-p\",\"device\":\"fz-pd\",\"extentSize\":\"64KiB\"}"));
        }
        if (!have.contains("fz-v")) {
            ok(api.postJson("/api/v1/pools/fz-p/volumes", "{\"name\":\"fz-v\",\"size\":\"256KiB\"}"));
        } else if (registry.device("fz-v").sizeBytes() != 256 << 10 && names("SELECT name FROM snapshots").isEmpty()) {
            ok(api.send("PATCH", "/api/v1/pools/fz-p/volumes/fz-v", "application/json",
                    "{\"size\":\"256KiB\",\"allowShrink\":true}"));
        }
        if (!have.contains("fz-s")) {
            ok(api.postJson("/api/v1/pools/fz-p/volumes/fz-v/snapshots", "{\"name\":\"fz-s\",\"size\":\"128KiB\"}"));
        }
        if (names("SELECT name FROM thin_pools WHERE name = 'fz-tp'").isEmpty()) {
            ok(api.postJson("/api/v1/pools", "{\"name\":\"fz-tp\",\"type\":\"thin\",\"dataDevice\":\"fz-td\","
                    + "\"metadataDevice\":\"fz-tm\","
                    // full, a thin pool queues writes for a minute (dm-thin's queue_if_no_space); the fuzzer's
                    // requests give up after 30 s, so this one fails them at once, and has room for a volume
                    // and a snapshot written in full anyway
                    + "\"errorWhenFull\":true}"));
        }
        if (!have.contains("fz-tv")) {
            ok(api.postJson("/api/v1/pools/fz-tp/volumes", "{\"name\":\"fz-tv\",\"size\":\"1MiB\"}"));
        } else if (registry.device("fz-tv").sizeBytes() != 1 << 20) {
            // a thin volume that grew is deleted (with its snapshot) and made again
            ok(api.delete("/api/v1/pools/fz-tp/volumes/fz-tv?force=true"));
            ok(api.postJson("/api/v1/pools/fz-tp/volumes", "{\"name\":\"fz-tv\",\"size\":\"1MiB\"}"));
            have.remove("fz-ts");
        }
        if (!have.contains("fz-ts")) {
            ok(api.postJson("/api/v1/pools/fz-tp/volumes/fz-tv/snapshots", "{\"name\":\"fz-ts\"}"));
        }
        if (!have.contains("fz-md")) {
            ok(api.postJson("/api/v1/arrays", "{\"name\":\"fz-md\",\"level\":\"raid1\",\"members\":[\"fz-a0\",\"fz-a1\"],"
                    + "\"assumeClean\":true}"));
        }
        if (!have.contains("fz-dm")) {
            ok(api.postJson("/api/v1/dm/devices", "{\"name\":\"fz-dm\",\"table\":\"0 16 linear fz-d0 0\"}"));
        }
        if (names("SELECT name FROM exports WHERE name = 'fz-e'").isEmpty()) {
            ok(api.postJson("/api/v1/exports", "{\"name\":\"fz-e\",\"device\":\"fz-v\"}"));
        }
    }

    /** Waits until no array resyncs, rebuilds or checks and no snapshot merges: state that moves on its own. */
    void settle() throws Exception {
        try {
            // in this thread: Awaitility interrupts its own poller, and an interrupt during H2's file
            // I/O closes the database (FileChannel closes on interrupt)
            await().pollInSameThread().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(20))
                    .until(this::idle);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("the service did not settle within a minute; arrays: "
                    + api.get("/api/v1/arrays").body() + "\nsnapshots: "
                    + jdbc.queryForList("SELECT * FROM snapshots"), e);
        }
    }

    private boolean idle() throws Exception {
        if (!forgetRuns()) {
            return false;
        }
        boolean busy = list("/api/v1/arrays").stream().anyMatch(a -> !"idle".equals(Json.at(a, "sync", "action"))
                || members(a).contains("rebuilding"));
        return !busy && jdbc.queryForObject("SELECT COUNT(*) FROM snapshots WHERE merge_exceptions IS NOT NULL",
                Long.class) == 0;
    }

    /**
     * Everything a request may change, apart from device data and counters: every row of every
     * table, and every registry entry with its claims, size, tables, disk settings, and mdstat.
     */
    String state() {
        StringBuilder s = new StringBuilder();
        for (RegisteredDevice e : registry.list()) {
            s.append(e.name()).append(' ').append(e.kind()).append(' ').append(e.state()).append(' ')
                    .append(new TreeMap<>(e.claims().entrySet().stream().collect(Collectors.toMap(
                            c -> c.getKey().toString(), Map.Entry::getValue))));
            if (e.live()) {
                s.append(" size=").append(e.device().sizeBytes());
            }
            if (e.device() instanceof MappedDevice m) {
                s.append(" [").append(m.tableText()).append("][").append(m.inactiveTableText()).append("] ")
                        .append(m.state());
            }
            if (e.device() instanceof Disk d) {
                s.append(' ').append(d.latency()).append(' ').append(d.queueDepth()).append(' ').append(d.faults());
            }
            s.append('\n');
        }
        for (String table : tables) {
            s.append(table).append(":\n");
            jdbc.queryForList("SELECT * FROM " + table + " ORDER BY 1").forEach(r -> s.append("  ").append(r).append('\n'));
        }
        // the bitmap daemon clears pages on its own timer (bitmapDelay after the last write), like a resync
        // state that moves by itself: its page counts are left out
        s.append(BITMAP_PAGES.matcher(arrays.mdstat()).replaceAll("bitmap: (pages)"));
        return s.toString();
    }

    /**
     * Cancels the workloads and experiments the fuzzer started and forgets those that ended (one
     * DELETE does either); true once none is left. A run left going would change its row when it
     * ends, under a later request.
     */
    private boolean forgetRuns() throws Exception {
        boolean none = true;
        for (String runs : List.of("workloads", "experiments")) {
            for (Long id : jdbc.queryForList("SELECT id FROM " + runs, Long.class)) {
                none = false;
                HttpResponse<String> r = api.delete("/api/v1/" + runs + "/" + id);
                if (r.statusCode() != 404) {
                    ok(r);
                }
            }
        }
        return none;
    }

    /* ---- helpers ---- */

    /** What the fixture's PATCH puts back: no latency, no queue depth limit, no faults. */
    private String diskSettings(String name) {
        return registry.find(name, Disk.class).map(d -> d.latency() + " " + d.queueDepth() + " " + d.faults())
                .orElse("");
    }

    private List<String> names(String sql) {
        return jdbc.queryForList(sql, String.class);
    }

    private List<?> list(String path) throws Exception {
        return (List<?>) Json.parse(api.get(path).body());
    }

    @SuppressWarnings("unchecked")
    private static String members(Object array) {
        return ((List<Map<String, Object>>) Json.at(array, "members")).stream().filter(m -> m.get("device") != null)
                .map(m -> m.get("device") + " " + m.get("state")).sorted().collect(Collectors.joining(","));
    }

    private static void ok(HttpResponse<String> r) {
        if (r.statusCode() >= 300) {
            throw new AssertionError("fixture request failed with " + r.statusCode() + ": " + r.body());
        }
    }
}
