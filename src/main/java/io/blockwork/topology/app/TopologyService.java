package io.blockwork.topology.app;

import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdDetail;
import io.blockwork.engine.md.MemberState;
import io.blockwork.engine.md.Raid10Geometry;
import io.blockwork.engine.md.Raid10Layout;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.event.Health;
import io.blockwork.export.app.ExportService;
import io.blockwork.export.app.ExportView;
import io.blockwork.pool.app.PoolService;
import io.blockwork.pool.app.PoolView;
import io.blockwork.pool.app.ThinPoolUsage;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.pool.thin.app.ThinPoolService;
import io.blockwork.pool.thin.app.ThinVolumeService;
import io.blockwork.pool.volume.app.VolumeService;
import io.blockwork.pool.volume.app.VolumeView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.springframework.stereotype.Service;

/**
 * The whole stack as a graph (disks, arrays, dm devices, classic and thin pools, volumes and thin
 * volumes, COW and thin snapshots, exports; the hidden devices under volumes, snapshots and thin
 * pools left out) and, from it, the {@link BlastRadius} of a failure. Pools and exports are not
 * block devices, so their ids carry a prefix: {@code pool:p1}, {@code export:e1}.
 *
 * <p>Edges come from two places: the registry's holders (an array's members, a dm table's devices,
 * a pool's or a thin pool's devices, an export's device), and the records of what is built inside
 * a pool, which holds nothing in the registry but a hidden device (a volume on its pool, a thin pool
 * carved from a classic pool, a snapshot on its origin or its thin pool).
 */
@Service
public class TopologyService {

    /** One object of the stack and the objects it is built on. */
    public record TopologyNode(String id, String kind, String name, String health, String reason, List<String> uses) {}

    private final DeviceRegistry registry;
    private final PoolService pools;
    private final ThinPoolService thinPools;
    private final VolumeService volumes;
    private final ThinVolumeService thinVolumes;
    private final ExportService exports;

    public TopologyService(DeviceRegistry registry, PoolService pools, ThinPoolService thinPools, VolumeService volumes,
                           ThinVolumeService thinVolumes, ExportService exports) {
        this.registry = registry;
        this.pools = pools;
        this.thinPools = thinPools;
        this.volumes = volumes;
        this.thinVolumes = thinVolumes;
        this.exports = exports;
    }

    public List<TopologyNode> nodes() {
        return build().values().stream().map(Built::node).toList();
    }

    /** What losing {@code failed} (node ids) would do. */
    public BlastRadius.Impact blastRadius(Set<String> failed) {
        Map<String, Built> graph = build();
        for (String id : failed) {
            if (!graph.containsKey(id)) {
                throw ProblemException.notFound("object", id);
            }
        }
        return BlastRadius.of(graph.values().stream().map(b -> new BlastRadius.Node(b.node.id(), b.node.uses(), b.redundancy))
                .toList(), failed);
    }

    private record Built(TopologyNode node, Redundancy redundancy) {}

    private Map<String, Built> build() {
        Map<String, Set<String>> uses = new LinkedHashMap<>();
        Map<String, String[]> about = new LinkedHashMap<>(); // id -> kind, name, health, reason
        Map<String, Redundancy> redundancy = new HashMap<>();
        Map<String, String> faulty = new HashMap<>();
        List<RegisteredDevice> devices = registry.list();
        for (RegisteredDevice e : devices) {
            if (e.hidden()) {
                continue;
            }
            Health h = Health.of(e);
            about.put(e.name(), new String[] {e.kind().label(), e.name(), h.state(), h.reason()});
            uses.computeIfAbsent(e.name(), k -> new LinkedHashSet<>());
            for (Holder holder : e.holders()) {
                String parent = holderId(holder);
                if (parent != null) {
                    uses.computeIfAbsent(parent, k -> new LinkedHashSet<>()).add(e.name());
                }
            }
        }
        // After every holder's edge (a spare or a failed member holds its array too, whatever its name's order):
        // a live array uses only the members that hold its data.
        for (RegisteredDevice e : devices) {
            e.device(MdArray.class).ifPresent(a -> {
                MdDetail d = a.detail();
                redundancy.put(e.name(), redundancy(d));
                Set<String> members = new LinkedHashSet<>();
                uses.put(e.name(), members);
                // a member the array failed is faulty in the graph, though the disk itself still answers
                d.members().stream().filter(m -> m.device() != null && m.state() == MemberState.FAULTY)
                        .forEach(m -> faulty.put(m.device(), "failed member of " + e.name()
                                + (m.faultReason() == null ? "" : ": " + m.faultReason())));
                d.members().stream().filter(m -> m.device() != null && m.raidDevice() >= 0
                                && (m.state() == MemberState.IN_SYNC || m.state() == MemberState.REBUILDING))
                        .forEach(m -> members.add(m.device()));
            });
        }
        for (PoolView p : Stream.concat(pools.list().stream(), thinPools.list().stream()).toList()) {
            String id = poolId(p.name());
            about.put(id, new String[] {"pool", p.name(), health(p.state().actual()), p.state().reason()});
            uses.computeIfAbsent(id, k -> new LinkedHashSet<>()).addAll(builtOn(p));
        }
        for (VolumeView v : Stream.concat(volumes.list().stream(), thinVolumes.list().stream()).toList()) {
            uses.computeIfAbsent(v.name(), k -> new LinkedHashSet<>()).add(poolId(v.pool()));
            // a COW snapshot reads what it did not copy from its origin; a thin snapshot's blocks are the pool's,
            // shared with the origin until either writes them, so it needs the pool and not the origin's device
            String snapshotsUse = VolumeView.THIN.equals(v.type()) ? poolId(v.pool()) : v.name();
            for (String s : v.snapshots()) {
                uses.computeIfAbsent(s, k -> new LinkedHashSet<>()).add(snapshotsUse);
            }
        }
        for (ExportView x : exports.list()) {
            String id = exportId(x.name());
            about.put(id, new String[] {"export", x.name(), health(x.state().actual()), x.state().reason()});
            uses.computeIfAbsent(id, k -> new LinkedHashSet<>()).add(x.device());
        }
        faulty.forEach((device, reason) -> {
            String[] v = about.get(device);
            if (v != null && "ok".equals(v[2])) {
                about.put(device, new String[] {v[0], v[1], "faulty", reason});
            }
        });
        Map<String, Built> graph = new LinkedHashMap<>();
        for (Map.Entry<String, String[]> a : about.entrySet()) {
            String[] v = a.getValue();
            List<String> used = new ArrayList<>(uses.getOrDefault(a.getKey(), Set.of()));
            used.retainAll(about.keySet());
            graph.put(a.getKey(), new Built(new TopologyNode(a.getKey(), v[0], v[1], v[2], v[3], List.copyOf(used)),
                    redundancy.getOrDefault(a.getKey(), new Redundancy.AllNeeded())));
        }
        return graph;
    }

    /**
     * What a pool is built on: a classic pool's device; a thin pool's data and metadata devices,
     * or the classic pool its hidden ones were carved from.
     */
    private static List<String> builtOn(PoolView p) {
        ThinPoolUsage thin = p.thin();
        if (thin == null) {
            return List.of(p.device());
        }
        return thin.from() != null ? List.of(poolId(thin.from())) : List.of(thin.dataDevice(), thin.metadataDevice());
    }

    /** The node of what holds a device, or null for a hold that is no edge of the graph. */
    private static String holderId(Holder holder) {
        return switch (holder.kind()) {
            case "array", "dm" -> holder.name();
            case PoolService.HOLDER_KIND, ThinPoolService.HOLDER_KIND -> poolId(holder.name());
            case ExportService.HOLDER_KIND -> exportId(holder.name());
            default -> null; // a volume's or snapshot's hold on its hidden devices, a write-log replay while it runs
        };
    }

    private static String poolId(String pool) {
        return "pool:" + pool;
    }

    private static String exportId(String export) {
        return "export:" + export;
    }

    private static String health(String actual) {
        return "active".equals(actual) ? "ok" : actual;
    }

    /** What an array survives now, from its level and its in-sync members. */
    static Redundancy redundancy(MdDetail d) {
        Map<Integer, String> inSync = new HashMap<>();
        d.members().stream().filter(m -> m.raidDevice() >= 0 && m.state() == MemberState.IN_SYNC && m.device() != null)
                .forEach(m -> inSync.put(m.raidDevice(), m.device()));
        return switch (d.level()) {
            case "raid1" -> new Redundancy.CopySets(List.of(new TreeSet<>(inSync.values())));
            case "raid4", "raid5" -> new Redundancy.Parity(Math.max(0, 1 - (d.raidDevices() - inSync.size())));
            case "raid6" -> new Redundancy.Parity(Math.max(0, 2 - (d.raidDevices() - inSync.size())));
            case "raid10" -> new Redundancy.CopySets(raid10CopySets(d, inSync));
            default -> new Redundancy.AllNeeded();
        };
    }

    /**
     * The sets of members that hold the copies of one chunk, from md's own placement: one layout
     * period of chunks is enough, the pattern repeats after it.
     */
    static List<Set<String>> raid10CopySets(MdDetail d, Map<Integer, String> inSync) {
        long chunkSectors = d.chunkBytes() / 512;
        Raid10Geometry g = Raid10Geometry.of(Raid10Layout.fromCode(d.layoutCode()), d.raidDevices(), chunkSectors,
                d.usedDevSizeBytes() / 512);
        int[] devs = new int[g.copies()];
        long[] sectors = new long[g.copies()];
        Set<Set<String>> sets = new LinkedHashSet<>();
        long chunks = Math.min(g.arraySectors() / chunkSectors, (long) d.raidDevices() * g.copies() * 2);
        for (long c = 0; c < chunks; c++) {
            g.findPhys(c * chunkSectors, devs, sectors);
            Set<String> set = new TreeSet<>();
            for (int dev : devs) {
                String name = inSync.get(dev);
                if (name != null) {
                    set.add(name);
                }
            }
            sets.add(set);
        }
        return List.copyOf(sets);
    }
}
