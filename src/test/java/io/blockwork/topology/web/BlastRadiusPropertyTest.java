package io.blockwork.topology.web;

import static io.blockwork.support.DmRequests.createDm;
import static io.blockwork.support.DmRequests.dmDelete;
import static io.blockwork.support.PoolRequests.createPool;
import static io.blockwork.support.PoolRequests.createSnapshot;
import static io.blockwork.support.PoolRequests.createVolume;
import static io.blockwork.support.PoolRequests.deletePool;
import static io.blockwork.support.PoolRequests.deleteSnapshot;
import static io.blockwork.support.PoolRequests.deleteVolume;
import static io.blockwork.support.PoolRequests.getPool;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.support.AppTest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * For random stacks built through the API (memory disks; linear, raid0, raid1, raid5 and raid6
 * arrays with spares, on disks or on anything built so far; linear dm devices; classic pools with
 * volumes and COW snapshots; thin pools carved from a classic pool or on two devices, with thin
 * volumes and thin snapshots; exports), the topology has exactly the objects built, each on what it
 * was built on, and the blast radius of each disk names exactly the objects whose data it touches:
 * compared with a reference computed here from what the test built, not from the service's graph.
 *
 * <p>The reference: each object built, with what it was built on and how many of those it must lose
 * to lose its data (1 for everything but redundant arrays; raid1 all of its legs, raid5 two, raid6
 * three); an object that keeps its data but has a lost or weakened thing under it loses redundancy.
 * raid10's placement is checked by {@link BlastRadiusApiTest}.
 *
 * <p>Each seed is a test of its own, named for it ({@code seed 7}); {@code -Dblockwork.topology.seeds=200}
 * runs more (default 12), {@code -Dblockwork.topology.seed=7} one. Each stack is taken down after its
 * check, so the shared context stays small.
 */
@AppTest
class BlastRadiusPropertyTest {

    private static final long MIB = 1L << 20;

    @Autowired
    MockMvc mvc;

    @TestFactory
    Stream<DynamicTest> everyDisksBlastRadiusNamesExactlyTheObjectsItsDataTouches() {
        String one = System.getProperty("blockwork.topology.seed");
        LongStream seeds = one != null ? LongStream.of(Long.parseLong(one))
                : LongStream.range(0, Long.getLong("blockwork.topology.seeds", 12));
        return seeds.mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> new RandomStack(seed).check()));
    }

    /** An object the test built: its topology id, what it is built on, how many of those it must lose, how to delete it. */
    private record Built(String id, List<String> uses, int losesDataAt, MockHttpServletRequestBuilder delete) {}

    private enum Effect { NONE, LOSES_REDUNDANCY, LOSES_DATA }

    private final class RandomStack {
        private final long seed;
        private final Random random;
        private final String p;
        private final Map<String, Built> built = new LinkedHashMap<>();
        private final List<String> disks = new ArrayList<>();
        /** Block devices nothing is built on yet, with their sizes. */
        private final Map<String, Long> free = new LinkedHashMap<>();
        /** Classic pools by name, with their free extents of 1 MiB. */
        private final Map<String, Long> classicPools = new LinkedHashMap<>();
        private final List<String> thinPools = new ArrayList<>();
        /** Volumes by name, with their pool. */
        private final Map<String, String> classicVolumes = new LinkedHashMap<>();
        private final Map<String, String> thinVolumes = new LinkedHashMap<>();
        /** Thin snapshots by name, with their volume. */
        private final Map<String, String> thinSnapshots = new LinkedHashMap<>();
        /** Devices an export may take beside the free ones: snapshots, and volumes with snapshots. */
        private final List<String> exportable = new ArrayList<>();
        private int serial;

        RandomStack(long seed) {
            this.seed = seed;
            this.random = new Random(seed);
            this.p = "bp" + seed + "-";
        }

        void check() throws Exception {
            try {
                int diskCount = 4 + random.nextInt(4);
                for (int i = 0; i < diskCount; i++) {
                    String d = name("d");
                    expectCreated(memoryDisk(d, (random.nextBoolean() ? 16 : 32) + "MiB"));
                    add(d, List.of(), delete("/api/v1/disks/{name}", d).with(admin()));
                    disks.add(d);
                    free.put(d, size(d));
                }
                int steps = 6 + random.nextInt(8);
                for (int i = 0; i < steps; i++) {
                    step(random.nextInt(9));
                }
                for (int i = random.nextInt(3); i > 0; i--) {
                    export();
                }
                assertTopology();
                for (String d : disks) {
                    assertBlastRadius(d);
                }
            } finally {
                takeDown();
            }
        }

        private void step(int action) throws Exception {
            switch (action) {
                case 0 -> array();
                case 1 -> dmLinear();
                case 2, 3 -> pool();
                case 4 -> volume();
                case 5 -> cowSnapshot();
                case 6 -> thinPool();
                case 7 -> thinVolume();
                default -> thinSnapshot();
            }
        }

        /* ---- building ---- */

        private void array() throws Exception {
            String[] levels = {"linear", "raid0", "raid1", "raid5", "raid6"};
            String level = levels[random.nextInt(levels.length)];
            int count = switch (level) {
                case "raid1" -> 2 + random.nextInt(2);
                case "raid5" -> 3;
                case "raid6" -> 4;
                default -> 2;
            };
            List<String> candidates = free.entrySet().stream().filter(e -> e.getValue() >= 8 * MIB).map(Map.Entry::getKey)
                    .collect(Collectors.toCollection(ArrayList::new));
            if (candidates.size() < count) {
                return;
            }
            List<String> members = pick(candidates, count);
            boolean redundant = !level.equals("linear") && !level.equals("raid0");
            long largest = members.stream().mapToLong(free::get).max().orElseThrow();
            List<String> spares = redundant && random.nextInt(3) == 0 ? pick(candidates.stream()
                    .filter(c -> !members.contains(c) && free.get(c) >= largest).toList(), 1) : List.of();
            String a = name("a");
            expectCreated(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON).content(
                    "{\"name\":\"" + a + "\",\"level\":\"" + level + "\",\"members\":" + json(members) + ",\"spares\":"
                            + json(spares) + (redundant ? ",\"assumeClean\":true" : "") + "}"));
            members.forEach(free::remove);
            spares.forEach(free::remove);
            int losesDataAt = switch (level) {
                case "raid1" -> count;
                case "raid5" -> 2;
                case "raid6" -> 3;
                default -> 1;
            };
            add(a, members, losesDataAt, delete("/api/v1/arrays/{name}", a).with(admin()));
            free.put(a, size(a));
        }

        /** A linear dm device over one or two free devices, end to end. */
        private void dmLinear() throws Exception {
            List<String> under = pick(new ArrayList<>(free.keySet()), 1 + random.nextInt(2));
            if (under.isEmpty()) {
                return;
            }
            StringBuilder table = new StringBuilder();
            long start = 0;
            for (String u : under) {
                long sectors = free.get(u) / 512;
                table.append(start).append(' ').append(sectors).append(" linear ").append(u).append(" 0\n");
                start += sectors;
            }
            String m = name("m");
            expectCreated(createDm(m, table.toString()));
            under.forEach(free::remove);
            add(m, under, dmDelete(m));
            free.put(m, size(m));
        }

        private void pool() throws Exception {
            List<String> candidates = free.entrySet().stream().filter(e -> e.getValue() >= 4 * MIB).map(Map.Entry::getKey)
                    .toList();
            if (candidates.isEmpty()) {
                return;
            }
            String device = pick(candidates, 1).getFirst();
            String pool = name("p");
            expectCreated(createPool(pool, device, "1MiB"));
            free.remove(device);
            add("pool:" + pool, List.of(device), deletePool(pool));
            classicPools.put(pool, ((Number) JsonPath.read(body(getPool(pool)), "$.freeBytes")).longValue() / MIB);
        }

        private void volume() throws Exception {
            String pool = pickPool(1);
            if (pool == null) {
                return;
            }
            long mib = 1 + random.nextInt((int) Math.min(8, classicPools.get(pool)));
            String v = name("v");
            expectCreated(createVolume(pool, v, mib + "MiB"));
            classicPools.merge(pool, -mib, Long::sum);
            add(v, List.of("pool:" + pool), deleteVolume(pool, v));
            classicVolumes.put(v, pool);
            free.put(v, size(v));
        }

        /** A COW snapshot of 1 MiB; its origin is then left to exports and more snapshots. */
        private void cowSnapshot() throws Exception {
            List<String> origins = classicVolumes.entrySet().stream()
                    .filter(e -> (free.containsKey(e.getKey()) || exportable.contains(e.getKey()))
                            && classicPools.get(e.getValue()) >= 1)
                    .map(Map.Entry::getKey).toList();
            if (origins.isEmpty()) {
                return;
            }
            String v = pick(origins, 1).getFirst();
            String pool = classicVolumes.get(v);
            String s = name("s");
            expectCreated(createSnapshot(pool, v, s, "1MiB"));
            classicPools.merge(pool, -1L, Long::sum);
            add(s, List.of(v), deleteSnapshot(pool, v, s));
            if (free.remove(v) != null) {
                exportable.add(v);
            }
            exportable.add(s);
        }

        /** A thin pool carved from a classic pool (4 MiB of data, 2 MiB of metadata), or on two free devices. */
        private void thinPool() throws Exception {
            String t = name("t");
            String parent = random.nextBoolean() ? pickPool(6) : null;
            if (parent != null) {
                expectCreated(createPool("{\"name\":\"" + t + "\",\"type\":\"thin\",\"from\":\"" + parent
                        + "\",\"size\":\"4MiB\"}"));
                classicPools.merge(parent, -6L, Long::sum);
                add("pool:" + t, List.of("pool:" + parent), deletePool(t));
            } else {
                List<String> devices = pick(new ArrayList<>(free.keySet()), 2);
                if (devices.size() < 2) {
                    return;
                }
                expectCreated(createPool("{\"name\":\"" + t + "\",\"type\":\"thin\",\"dataDevice\":\"" + devices.get(0)
                        + "\",\"metadataDevice\":\"" + devices.get(1) + "\"}"));
                devices.forEach(free::remove);
                add("pool:" + t, devices, deletePool(t));
            }
            thinPools.add(t);
        }

        private void thinVolume() throws Exception {
            if (thinPools.isEmpty()) {
                return;
            }
            String pool = pick(thinPools, 1).getFirst();
            String v = name("w");
            expectCreated(createVolume(pool, v, "16MiB"));
            add(v, List.of("pool:" + pool), deleteVolume(pool, v));
            thinVolumes.put(v, pool);
            free.put(v, size(v));
        }

        /** A thin snapshot of a thin volume, or of one of its snapshots: the pool's, like its volume. */
        private void thinSnapshot() throws Exception {
            if (thinVolumes.isEmpty()) {
                return;
            }
            String v = pick(new ArrayList<>(thinVolumes.keySet()), 1).getFirst();
            String pool = thinVolumes.get(v);
            List<String> sources = thinSnapshots.entrySet().stream().filter(e -> e.getValue().equals(v))
                    .map(Map.Entry::getKey).collect(Collectors.toCollection(ArrayList::new));
            sources.add(v);
            String source = pick(sources, 1).getFirst();
            String s = name("u");
            expectCreated(createSnapshot(pool, v, "{\"name\":\"" + s + "\",\"source\":\"" + source + "\"}"));
            add(s, List.of("pool:" + pool), deleteSnapshot(pool, v, s));
            thinSnapshots.put(s, v);
            exportable.add(s);
        }

        private void export() throws Exception {
            List<String> candidates = new ArrayList<>(free.keySet());
            candidates.addAll(exportable);
            if (candidates.isEmpty()) {
                return;
            }
            String device = pick(candidates, 1).getFirst();
            String x = name("x");
            expectCreated(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                    .content("{\"name\":\"" + x + "\",\"device\":\"" + device + "\"}"));
            free.remove(device);
            exportable.remove(device);
            add("export:" + x, List.of(device), delete("/api/v1/exports/{name}", x).with(admin()));
        }

        /* ---- checking ---- */

        private void assertTopology() throws Exception {
            List<Map<String, Object>> nodes = JsonPath.read(body(get("/api/v1/topology").with(viewer())), "$");
            Map<String, Set<String>> ours = new LinkedHashMap<>();
            for (Map<String, Object> n : nodes) {
                String id = (String) n.get("id");
                if (id.replaceFirst("^(pool|export):", "").startsWith(p)) {
                    @SuppressWarnings("unchecked")
                    List<String> uses = (List<String>) n.get("uses");
                    ours.put(id, new TreeSet<>(uses));
                }
            }
            Map<String, Set<String>> expected = new LinkedHashMap<>();
            built.values().forEach(b -> expected.put(b.id(), new TreeSet<>(b.uses())));
            assertThat(ours).as("seed %d: the topology's nodes of %s and what each uses", seed, stackText())
                    .containsExactlyInAnyOrderEntriesOf(expected);
        }

        private void assertBlastRadius(String disk) throws Exception {
            String answer = body(get("/api/v1/topology/blast-radius").with(viewer()).param("failed", disk));
            Map<String, Effect> effects = new HashMap<>();
            built.keySet().forEach(id -> reference(id, disk, effects));
            List<String> data = ofEffect(effects, Effect.LOSES_DATA, disk);
            List<String> redundancy = ofEffect(effects, Effect.LOSES_REDUNDANCY, disk);
            assertThat(List.<List<String>>of(JsonPath.read(answer, "$.losesData"), JsonPath.read(answer, "$.losesRedundancy")))
                    .as("seed %d: [losesData, losesRedundancy] if %s failed, in %s", seed, disk, stackText())
                    .containsExactly(data, redundancy);
        }

        /** What losing {@code disk} does to {@code id}, from what the test built alone. */
        private Effect reference(String id, String disk, Map<String, Effect> effects) {
            Effect known = effects.get(id);
            if (known != null) {
                return known;
            }
            Built b = built.get(id);
            int lost = 0;
            boolean touched = id.equals(disk);
            for (String u : b.uses()) {
                Effect e = reference(u, disk, effects);
                lost += e == Effect.LOSES_DATA ? 1 : 0;
                touched |= e != Effect.NONE;
            }
            Effect effect = id.equals(disk) || lost >= b.losesDataAt() ? Effect.LOSES_DATA
                    : touched ? Effect.LOSES_REDUNDANCY : Effect.NONE;
            effects.put(id, effect);
            return effect;
        }

        private static List<String> ofEffect(Map<String, Effect> effects, Effect wanted, String failed) {
            return effects.entrySet().stream().filter(e -> e.getValue() == wanted && !e.getKey().equals(failed))
                    .map(Map.Entry::getKey).sorted().toList();
        }

        /* ---- helpers ---- */

        private void takeDown() throws Exception {
            List<Built> all = new ArrayList<>(built.values());
            for (Built b : all.reversed()) {
                MockHttpServletResponse r = mvc.perform(b.delete()).andReturn().getResponse();
                assertThat(r.getStatus()).as("seed %d: deleting %s: %s", seed, b.id(), r.getContentAsString()).isEqualTo(204);
            }
        }

        private String stackText() {
            return built.values().stream().filter(b -> !b.uses().isEmpty())
                    .map(b -> b.id() + (b.losesDataAt() > 1 ? "(loses data at " + b.losesDataAt() + ")" : "") + " on "
                            + b.uses())
                    .collect(Collectors.joining("; "));
        }

        private void add(String id, List<String> uses, MockHttpServletRequestBuilder delete) {
            add(id, uses, 1, delete);
        }

        private void add(String id, List<String> uses, int losesDataAt, MockHttpServletRequestBuilder delete) {
            built.put(id, new Built(id, List.copyOf(uses), losesDataAt, delete));
        }

        private String name(String kind) {
            return p + kind + ++serial;
        }

        private String pickPool(long extents) {
            List<String> pools = classicPools.entrySet().stream().filter(e -> e.getValue() >= extents)
                    .map(Map.Entry::getKey).toList();
            return pools.isEmpty() ? null : pick(pools, 1).getFirst();
        }

        /** Up to {@code n} distinct elements of {@code from}, at random. */
        private List<String> pick(List<String> from, int n) {
            List<String> copy = new ArrayList<>(from);
            List<String> out = new ArrayList<>();
            while (out.size() < n && !copy.isEmpty()) {
                out.add(copy.remove(random.nextInt(copy.size())));
            }
            return out;
        }

        private long size(String device) throws Exception {
            return ((Number) JsonPath.read(body(get("/api/v1/devices/{name}", device).with(admin())), "$.sizeBytes"))
                    .longValue();
        }

        private void expectCreated(MockHttpServletRequestBuilder request) throws Exception {
            MockHttpServletResponse r = mvc.perform(request).andReturn().getResponse();
            assertThat(r.getStatus()).as("seed %d: building %s: %s", seed, stackText(), r.getContentAsString())
                    .isEqualTo(201);
        }

        private String body(MockHttpServletRequestBuilder request) throws Exception {
            MockHttpServletResponse r = mvc.perform(request).andReturn().getResponse();
            assertThat(r.getStatus()).as("seed %d: %s", seed, r.getContentAsString()).isEqualTo(200);
            return r.getContentAsString();
        }

        private static String json(List<String> names) {
            return names.stream().map(n -> "\"" + n + "\"").collect(Collectors.joining(",", "[", "]"));
        }
    }
}
