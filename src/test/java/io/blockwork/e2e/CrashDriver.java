package io.blockwork.e2e;

import io.blockwork.nbd.Json;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The crash suite's driver: management operations and durable writes chosen at random, one at a
 * time, against a service that is killed under it, and the {@link CrashModel} of everything the
 * service acknowledged. After each restart {@link #verify} checks that the service has exactly
 * that: the configuration acknowledged (the operation in flight at the kill either whole or not
 * at all), every durable block, no orphan image, no extent that no volume or snapshot owns, and
 * a start-up assembly with nothing failed.
 *
 * <p>The objects: file disk {@code pv} under pool {@code p} (128 KiB extents) with volumes,
 * snapshots and exports coming and going; raid1 {@code md} over file disks {@code m0}..{@code m3}
 * whose members are failed, removed, added and re-added; extra file disks {@code x<n>}, and raid1
 * arrays {@code a<n>} of two of them, created and deleted. Writes
 * go to the first 64 blocks of a volume or the array (4 KiB each), FUA or followed by a flush.
 */
final class CrashDriver {

    static final String POOL = "p";
    static final String ARRAY = "md";
    static final long EXTENT = 128 << 10;
    static final int BLOCK = 4096;
    private static final int WRITABLE_BLOCKS = 64;
    private static final long COW = 1 << 20;
    private static final List<String> MEMBER_DISKS = List.of("m0", "m1", "m2", "m3");
    private static final Set<String> FIXED_DISKS = Set.of("pv", "m0", "m1", "m2", "m3");

    /** A change whose request went out; it is in doubt if the service died before answering. */
    private record Pending(String what, CrashModel after, String device, Long block) {}

    private final Random random;
    private CrashModel model = new CrashModel();
    private volatile Pending pending;
    private int next;
    private final TreeMap<String, Integer> acknowledged = new TreeMap<>();
    private final TreeMap<String, Integer> inDoubt = new TreeMap<>();
    private int refused;
    private long blocksVerified;
    private int orphansSwept;
    private String failure;

    CrashDriver(Random random) {
        this.random = random;
    }

    /* ---- set-up ---- */

    void setUp(ServiceClient api) throws Exception {
        expect(api.postJson("/api/v1/disks", "{\"name\":\"pv\",\"type\":\"file\",\"size\":\"32MiB\"}"), 201);
        expect(api.postJson("/api/v1/pools", "{\"name\":\"" + POOL + "\",\"device\":\"pv\",\"extentSize\":\"128KiB\"}"),
                201);
        for (String m : MEMBER_DISKS) {
            expect(api.postJson("/api/v1/disks", "{\"name\":\"" + m + "\",\"type\":\"file\",\"size\":\"4MiB\"}"), 201);
        }
        expect(api.postJson("/api/v1/arrays", "{\"name\":\"" + ARRAY + "\",\"level\":\"raid1\","
                + "\"members\":[\"m0\",\"m1\"],\"speedLimits\":{\"min\":\"50MiB\",\"max\":\"1GiB\"}}"), 201);
        model.members.put("m0", false);
        model.members.put("m1", false);
    }

    private static void expect(HttpResponse<String> r, int status) {
        if (r.statusCode() != status) {
            throw new AssertionError("expected " + status + " but got " + r.statusCode() + ": " + r.body());
        }
    }

    /* ---- the driver ---- */

    /**
     * Runs operations until the service is gone (an I/O error on the connection). After
     * {@code steps} operations it calls {@code arm}, which schedules the kill, and goes on. A 5xx
     * answer is recorded as a failure and ends the run.
     */
    void runUntilGone(ServiceClient api, int steps, Runnable arm) {
        try {
            for (int i = 0; failure == null; i++) {
                if (i == steps) {
                    arm.run();
                }
                step(api);
            }
        } catch (IOException e) {
            // the service was killed: the change in flight, if any, stays pending
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs {@code steps} operations against a service that stays up (the verifier's own test). */
    void run(ServiceClient api, int steps) throws IOException, InterruptedException {
        for (int i = 0; i < steps && failure == null; i++) {
            step(api);
        }
    }

    /** The acknowledged model: what {@link #verify} expects to find. */
    CrashModel model() {
        return model;
    }

    /** Null, or the first 5xx answer (or other broken promise) the driver saw. */
    String failure() {
        return failure;
    }

    private void step(ServiceClient api) throws IOException, InterruptedException {
        int dice = random.nextInt(100);
        if (dice < 28) {
            write(api);
        } else if (dice < 39) {
            createVolume(api);
        } else if (dice < 46) {
            deleteVolume(api);
        } else if (dice < 53) {
            resizeVolume(api);
        } else if (dice < 60) {
            createSnapshot(api);
        } else if (dice < 65) {
            deleteSnapshot(api);
        } else if (dice < 71) {
            createExport(api);
        } else if (dice < 75) {
            deleteExport(api);
        } else if (dice < 80) {
            createDisk(api);
        } else if (dice < 83) {
            deleteDisk(api);
        } else if (dice < 87) {
            createArray(api);
        } else if (dice < 90) {
            deleteArray(api);
        } else {
            changeArray(api);
        }
    }

    private void createVolume(ServiceClient api) throws IOException, InterruptedException {
        if (model.volumes.size() >= 6) {
            return;
        }
        String name = "v" + next++;
        long size = EXTENT * (1 + random.nextInt(16));
        CrashModel after = model.copy();
        after.volumes.put(name, size);
        change("create volume", after, () -> api.postJson("/api/v1/pools/" + POOL + "/volumes",
                "{\"name\":\"" + name + "\",\"size\":" + size + "}"));
    }

    private void deleteVolume(ServiceClient api) throws IOException, InterruptedException {
        String v = pick(model.volumes.keySet());
        if (v != null) {
            CrashModel after = model.copy();
            after.removeVolume(v);
            change("delete volume", after, () -> api.delete("/api/v1/pools/" + POOL + "/volumes/" + v
                    + "?force=true"));
        }
    }

    private void resizeVolume(ServiceClient api) throws IOException, InterruptedException {
        String v = pick(model.volumes.keySet());
        if (v == null || model.snapshots.values().stream().anyMatch(s -> s[0].equals(v))) {
            return; // a volume with snapshots refuses a resize; not what this suite is after
        }
        long size = EXTENT * (1 + random.nextInt(16));
        CrashModel after = model.copy();
        after.volumes.put(v, size);
        after.blocksOf(v).keySet().removeIf(b -> (b + 1) * BLOCK > size);
        change("resize volume", after, () -> api.send("PATCH", "/api/v1/pools/" + POOL + "/volumes/" + v,
                "application/json", "{\"size\":" + size + ",\"allowShrink\":true}"));
    }

    private void createSnapshot(ServiceClient api) throws IOException, InterruptedException {
        String v = pick(model.volumes.keySet());
        if (v == null || model.snapshots.size() >= 4) {
            return;
        }
        String name = "s" + next++;
        CrashModel after = model.copy();
        after.snapshots.put(name, new String[] {v, Long.toString(COW)});
        after.blocks.put(name, new TreeMap<>(model.blocksOf(v)));
        change("create snapshot", after, () -> api.postJson("/api/v1/pools/" + POOL + "/volumes/" + v + "/snapshots",
                "{\"name\":\"" + name + "\",\"size\":" + COW + "}"));
    }

    private void deleteSnapshot(ServiceClient api) throws IOException, InterruptedException {
        String s = pick(model.snapshots.keySet());
        if (s != null) {
            String v = model.snapshots.get(s)[0];
            CrashModel after = model.copy();
            after.removeSnapshot(s);
            change("delete snapshot", after, () -> api.delete("/api/v1/pools/" + POOL + "/volumes/" + v
                    + "/snapshots/" + s + "?force=true"));
        }
    }

    private void createExport(ServiceClient api) throws IOException, InterruptedException {
        List<String> devices = new ArrayList<>(model.volumes.keySet());
        devices.addAll(model.snapshots.keySet());
        String device = pick(devices);
        if (device == null || model.exports.size() >= 4) {
            return;
        }
        String name = "e" + next++;
        boolean readOnly = model.snapshots.containsKey(device);
        CrashModel after = model.copy();
        after.exports.put(name, device);
        change("create export", after, () -> api.postJson("/api/v1/exports", "{\"name\":\"" + name + "\",\"device\":\""
                + device + "\",\"readOnly\":" + readOnly + "}"));
    }

    private void deleteExport(ServiceClient api) throws IOException, InterruptedException {
        String e = pick(model.exports.keySet());
        if (e != null) {
            CrashModel after = model.copy();
            after.exports.remove(e);
            change("delete export", after, () -> api.delete("/api/v1/exports/" + e));
        }
    }

    private void createDisk(ServiceClient api) throws IOException, InterruptedException {
        if (model.disks.size() >= 6) {
            return;
        }
        String name = "x" + next++;
        long size = (1 + random.nextInt(4)) << 20;
        CrashModel after = model.copy();
        after.disks.put(name, size);
        change("create file disk", after, () -> api.postJson("/api/v1/disks", "{\"name\":\"" + name
                + "\",\"type\":\"file\",\"size\":" + size + "}"));
    }

    private void deleteDisk(ServiceClient api) throws IOException, InterruptedException {
        String d = pick(freeDisks());
        if (d != null) {
            CrashModel after = model.copy();
            after.disks.remove(d);
            change("delete file disk", after, () -> api.delete("/api/v1/disks/" + d));
        }
    }

    /** A raid1 of two extra disks no array uses. */
    private void createArray(ServiceClient api) throws IOException, InterruptedException {
        List<String> free = freeDisks();
        if (free.size() < 2) {
            return;
        }
        String a = pick(free);
        String b = pick(free.stream().filter(d -> !d.equals(a)).toList());
        String name = "a" + next++;
        CrashModel after = model.copy();
        after.arrays.put(name, a + "," + b);
        change("create array", after, () -> api.postJson("/api/v1/arrays", "{\"name\":\"" + name
                + "\",\"level\":\"raid1\",\"members\":[\"" + a + "\",\"" + b + "\"],\"assumeClean\":true}"));
    }

    private void deleteArray(ServiceClient api) throws IOException, InterruptedException {
        String a = pick(model.arrays.keySet());
        if (a != null) {
            CrashModel after = model.copy();
            after.arrays.remove(a);
            change("delete array", after, () -> api.delete("/api/v1/arrays/" + a));
        }
    }

    /** Extra disks that no array uses. */
    private List<String> freeDisks() {
        Set<String> used = model.arrays.values().stream().flatMap(m -> Stream.of(m.split(",")))
                .collect(Collectors.toSet());
        return model.disks.keySet().stream().filter(d -> !used.contains(d)).toList();
    }

    /** Fail an in-sync member while both are in sync; remove a failed one; add or re-add a free disk. */
    private void changeArray(ServiceClient api) throws IOException, InterruptedException {
        List<String> faulty = model.members.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey)
                .toList();
        List<String> free = MEMBER_DISKS.stream().filter(d -> !model.members.containsKey(d)).toList();
        CrashModel after = model.copy();
        if (!faulty.isEmpty()) {
            String m = pick(faulty);
            after.members.remove(m);
            change("remove member", after, () -> api.delete("/api/v1/arrays/" + ARRAY + "/members/" + m));
        } else if (!free.isEmpty() && model.members.size() < 3) {
            String d = pick(free);
            after.members.put(d, false);
            boolean reAdd = random.nextBoolean();
            change(reAdd ? "re-add member" : "add member", after, () -> reAdd
                    ? api.post("/api/v1/arrays/" + ARRAY + "/members/" + d + "/re-add")
                    : api.postJson("/api/v1/arrays/" + ARRAY + "/members", "{\"device\":\"" + d + "\"}"));
        } else {
            Map<String, Object> array = Json.parseObject(api.get("/api/v1/arrays/" + ARRAY).body());
            List<String> inSync = members(array).stream().filter(m -> "in_sync".equals(m.get("state")))
                    .map(m -> (String) m.get("device")).toList();
            if (inSync.size() == 2) {
                String m = pick(inSync);
                after.members.put(m, true);
                change("fail member", after, () -> api.post("/api/v1/arrays/" + ARRAY + "/members/" + m + "/fail"));
            }
        }
    }

    /** A FUA write, or a plain write and a flush: durable once answered. */
    private void write(ServiceClient api) throws IOException, InterruptedException {
        List<String> devices = new ArrayList<>(model.volumes.keySet());
        devices.add(ARRAY);
        String device = pick(devices);
        long size = device.equals(ARRAY) ? 4 << 20 : model.volumes.get(device);
        long block = random.nextInt((int) Math.min(WRITABLE_BLOCKS, size / BLOCK));
        byte[] data = new byte[BLOCK];
        random.nextBytes(data);
        CrashModel after = model.copy();
        after.blocksOf(device).put(block, data);
        String path = "/api/v1/devices/" + device + "/data?offset=" + block * BLOCK;
        if (random.nextBoolean()) {
            change("FUA write", after, device, block, () -> api.put(path + "&fua=true", data));
        } else {
            change("write and flush", after, device, block, () -> {
                HttpResponse<String> written = api.put(path, data);
                return written.statusCode() != 204 ? written : api.post("/api/v1/devices/" + device + "/flush");
            });
        }
    }

    /* ---- requests ---- */

    @FunctionalInterface
    private interface Request {
        HttpResponse<String> send() throws IOException, InterruptedException;
    }

    private void change(String what, CrashModel after, Request request) throws IOException, InterruptedException {
        change(what, after, null, null, request);
    }

    private void change(String what, CrashModel after, String device, Long block, Request request)
            throws IOException, InterruptedException {
        pending = new Pending(what, after, device, block);
        HttpResponse<String> r = request.send();
        pending = null;
        int status = r.statusCode();
        if (status >= 200 && status < 300) {
            model = after;
            acknowledged.merge(what, 1, Integer::sum);
        } else if (status >= 500) {
            failure = what + " answered " + status + ": " + r.body();
        } else {
            refused++;
        }
    }

    private <T> T pick(java.util.Collection<T> from) {
        if (from.isEmpty()) {
            return null;
        }
        List<T> list = new ArrayList<>(from);
        return list.get(random.nextInt(list.size()));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> members(Map<String, Object> array) {
        return ((List<Map<String, Object>>) array.get("members")).stream().filter(m -> m.get("device") != null)
                .toList();
    }

    /* ---- after a restart ---- */

    /** Image files before the restart that no disk of the model owns: what start-up must sweep. */
    void countOrphans(Path dataDir) throws IOException {
        Set<String> owned = new TreeSet<>(FIXED_DISKS);
        owned.addAll(model.disks.keySet());
        Pending p = pending;
        if (p != null) {
            owned.addAll(p.after().disks.keySet());
        }
        try (Stream<Path> images = Files.list(dataDir.resolve("disks"))) {
            orphansSwept += (int) images.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".img"))
                    .map(f -> f.replace(".img", ""))
                    .filter(n -> !owned.contains(n)).count();
        }
    }

    /**
     * Checks the restarted service against the model, the change in flight at the kill being
     * either done or not done, and adopts what it found. Throws AssertionError naming what was lost.
     */
    void verify(ServiceClient api, Path dataDir) throws Exception {
        Pending p = pending;
        pending = null;
        String assembly = api.get("/api/v1/system/assembly").body();
        for (Object o : (List<?>) Json.parseObject(assembly).get("objects")) {
            if (!"active".equals(Json.at(o, "state", "actual"))) {
                throw new AssertionError("start-up assembly is not clean: " + o);
            }
        }
        String observed = observedConfiguration(api);
        CrashModel match;
        CrashModel other = null;
        if (observed.equals(model.configuration())) {
            match = model;
            other = p == null ? null : p.after();
        } else if (p != null && observed.equals(p.after().configuration())) {
            match = p.after();
            other = model;
        } else {
            throw new AssertionError("the configuration after the restart is neither what was acknowledged"
                    + (p == null ? "" : " nor that plus the change in flight (" + p.what() + ")")
                    + ":\nacknowledged:\n" + model.configuration()
                    + (p == null ? "" : "with " + p.what() + ":\n" + p.after().configuration())
                    + "found:\n" + observed);
        }
        if (p != null) {
            inDoubt.merge(p.what() + (match == model ? " (not done)" : " (done)"), 1, Integer::sum);
        }
        checkImages(dataDir, match);
        checkExtents(api, match);
        CrashModel adopted = match.copy();
        for (Map.Entry<String, TreeMap<Long, byte[]>> device : match.blocks.entrySet()) {
            for (Map.Entry<Long, byte[]> b : device.getValue().entrySet()) {
                byte[] found = read(api, device.getKey(), b.getKey());
                byte[] alternative = other != null && p.device() != null && p.device().equals(device.getKey())
                        && p.block().equals(b.getKey()) ? other.blocksOf(device.getKey()).get(b.getKey()) : null;
                if (!CrashModel.same(found, b.getValue()) && !(alternative != null && CrashModel.same(found, alternative))) {
                    throw new AssertionError("block " + b.getKey() + " of " + device.getKey()
                            + " is not what was written durably" + (p == null ? "" : " (in flight: " + p.what() + ")"));
                }
                adopted.blocksOf(device.getKey()).put(b.getKey(), found);
                blocksVerified++;
            }
        }
        if (p != null && p.device() != null && match == model && other.blocksOf(p.device()).containsKey(p.block())
                && !match.blocksOf(p.device()).containsKey(p.block())) {
            // a first write to a block, in flight: if it landed, it is durable from now on
            byte[] found = read(api, p.device(), p.block());
            if (CrashModel.same(found, other.blocksOf(p.device()).get(p.block()))) {
                adopted.blocksOf(p.device()).put(p.block(), found);
            }
        }
        model = adopted;
    }

    private String observedConfiguration(ServiceClient api) throws Exception {
        CrashModel seen = new CrashModel();
        for (Object d : (List<?>) Json.parse(api.get("/api/v1/disks").body())) {
            String name = (String) Json.at(d, "name");
            if (!FIXED_DISKS.contains(name)) {
                seen.disks.put(name, (long) Json.number(d, "sizeBytes"));
            }
        }
        for (Object v : (List<?>) Json.parse(api.get("/api/v1/pools/" + POOL + "/volumes").body())) {
            String name = (String) Json.at(v, "name");
            seen.volumes.put(name, (long) Json.number(v, "sizeBytes"));
            for (Object s : (List<?>) Json.parse(api.get("/api/v1/pools/" + POOL + "/volumes/" + name + "/snapshots")
                    .body())) {
                if (!"active".equals(Json.at(s, "state"))) {
                    throw new AssertionError("snapshot is not active after the restart: " + s);
                }
                seen.snapshots.put((String) Json.at(s, "name"), new String[] {name,
                        Long.toString((long) Json.number(s, "sizeBytes"))});
            }
        }
        for (Object e : (List<?>) Json.parse(api.get("/api/v1/exports").body())) {
            if (!"active".equals(Json.at(e, "state", "actual"))) {
                throw new AssertionError("export is not active after the restart: " + e);
            }
            seen.exports.put((String) Json.at(e, "name"), (String) Json.at(e, "device"));
        }
        for (Object a : (List<?>) Json.parse(api.get("/api/v1/arrays").body())) {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> members = members((Map<String, Object>) a);
            if (ARRAY.equals(Json.at(a, "name"))) {
                for (Map<String, Object> m : members) {
                    seen.members.put((String) m.get("device"), "faulty".equals(m.get("state")));
                }
            } else {
                seen.arrays.put((String) Json.at(a, "name"), members.stream().map(m -> (String) m.get("device"))
                        .collect(Collectors.joining(",")));
            }
        }
        return seen.configuration();
    }

    /** Every image belongs to a file disk and every file disk has its image: none half-created, none left over. */
    private static void checkImages(Path dataDir, CrashModel expected) throws IOException {
        Set<String> disks = new TreeSet<>(FIXED_DISKS);
        disks.addAll(expected.disks.keySet());
        Set<String> images;
        try (Stream<Path> files = Files.list(dataDir.resolve("disks"))) {
            images = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".img"))
                    .map(n -> n.substring(0, n.length() - 4)).collect(Collectors.toCollection(TreeSet::new));
        }
        if (!images.equals(disks)) {
            throw new AssertionError("image files " + images + " do not match the file disks " + disks);
        }
    }

    /** The pool's used extents are exactly those of its volumes and snapshots: no orphan extent. */
    private static void checkExtents(ServiceClient api, CrashModel expected) throws Exception {
        long used = (long) Json.number(Json.parseObject(api.get("/api/v1/pools/" + POOL).body()), "extents", "used");
        long owned = expected.volumes.values().stream().mapToLong(s -> s / EXTENT).sum()
                + expected.snapshots.values().stream().mapToLong(s -> Long.parseLong(s[1]) / EXTENT).sum();
        if (used != owned) {
            throw new AssertionError("pool " + POOL + " uses " + used + " extents but its volumes and snapshots own "
                    + owned + ":\n" + expected.configuration());
        }
    }

    private static byte[] read(ServiceClient api, String device, long block) throws Exception {
        HttpResponse<byte[]> r = api.getBytes("/api/v1/devices/" + device + "/data?offset=" + block * BLOCK
                + "&length=" + BLOCK);
        if (r.statusCode() != 200) {
            throw new AssertionError("reading block " + block + " of " + device + " answered " + r.statusCode());
        }
        return r.body();
    }

    /* ---- figures ---- */

    String summary() {
        int acks = acknowledged.values().stream().mapToInt(Integer::intValue).sum();
        return "acknowledged " + acks + " changes " + acknowledged + "; refused " + refused
                + "; in flight at a kill " + inDoubt + "; durable blocks verified " + blocksVerified
                + "; orphan images swept at start-up " + orphansSwept;
    }

    int acknowledgedChanges() {
        return acknowledged.values().stream().mapToInt(Integer::intValue).sum();
    }

    int inFlightAtKills() {
        return inDoubt.values().stream().mapToInt(Integer::intValue).sum();
    }

    long blocksVerified() {
        return blocksVerified;
    }

    int orphansSwept() {
        return orphansSwept;
    }
}
