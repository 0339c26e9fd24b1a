package io.blockwork.engine.dm.thin;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A consistency check of pool metadata in memory, in the spirit of {@code thin_check}: walks every
 * tree from the roots and compares what it finds with what the metadata keeps.
 * <ul>
 *   <li>each node's reference count equals the pointers to it, and every live node is reachable;
 *   <li>each data block's reference count equals the mapping-tree leaf entries that name it (a
 *       leaf shared by several devices counts once), there is no count for an unnamed block, and
 *       no named block is past the data device or free for allocation;
 *   <li>the refcount tree holds each block's count as memory does, except for the blocks whose
 *       change is still pending (written into the tree when the transaction closes);
 *   <li>each device's mapped count equals its entries;
 *   <li>keys ascend, and an internal node's keys bound its children's.
 * </ul>
 * Returns the problems found (empty when consistent). Tests run it after every step.
 */
public final class MetadataCheck {

    private MetadataCheck() {}

    public static List<String> run(PoolMetadata pmd) {
        return pmd.inspect(parts -> new Walk(parts).run());
    }

    private static final class Walk {
        private final PoolMetadata.Parts pmd;
        private final MetadataSpace space;
        private final List<String> problems = new ArrayList<>();
        private final Map<Long, Integer> refs = new HashMap<>();
        private final Map<Long, Long> dataRefs = new HashMap<>();
        private final Set<Long> visited = new HashSet<>();

        Walk(PoolMetadata.Parts pmd) {
            this.pmd = pmd;
            this.space = pmd.nodes();
        }

        List<String> run() {
            long devices = pmd.mappings().root();
            long details = pmd.catalogue().writeChanged();
            long refcounts = pmd.data().root();
            long held = pmd.heldRoot();
            for (long root : held == 0 ? new long[] {devices, details, refcounts} : new long[] {devices, details, refcounts, held}) {
                refs.merge(root, 1, Integer::sum);
                visit(root, Long.MIN_VALUE, Long.MAX_VALUE);
            }
            for (Map.Entry<Long, Integer> e : refs.entrySet()) {
                if (space.refs(e.getKey()) != e.getValue()) {
                    problems.add("metadata block " + e.getKey() + " has " + space.refs(e.getKey()) + " references, "
                            + e.getValue() + " pointers");
                }
            }
            if (visited.size() != liveNodes()) {
                problems.add(liveNodes() + " live nodes, " + visited.size() + " reachable");
            }
            checkData();
            checkDetails(devices);
            return problems;
        }

        private long liveNodes() {
            long n = 0;
            for (TreeKind k : TreeKind.values()) {
                n += space.liveNodes(k);
            }
            return n;
        }

        /** Visits node {@code b} once, counting pointers to its children and data references of its leaf entries. */
        private void visit(long b, long low, long high) {
            if (!visited.add(b)) {
                return;
            }
            Node n;
            try {
                n = space.node(b);
            } catch (IllegalStateException e) {
                problems.add(e.getMessage());
                return;
            }
            for (int i = 0; i < n.count; i++) {
                if (n.keys[i] < low || n.keys[i] >= high || (i > 0 && n.keys[i] <= n.keys[i - 1])) {
                    problems.add(n + ": key " + n.keys[i] + " out of order or outside [" + low + ", " + high + ")");
                }
                boolean child = !n.leaf || n.kind.values == TreeKind.Values.METADATA;
                if (child) {
                    refs.merge(n.values[i], 1, Integer::sum);
                    long childHigh = !n.leaf && i + 1 < n.count ? n.keys[i + 1] : n.leaf ? Long.MAX_VALUE : high;
                    visit(n.values[i], n.leaf ? Long.MIN_VALUE : n.keys[i], childHigh);
                } else if (n.kind == TreeKind.MAPPING) {
                    dataRefs.merge(BlockTime.block(n.values[i]), 1L, Long::sum);
                }
            }
        }

        private void checkData() {
            DataSpace data = pmd.data();
            Map<Long, Long> stored = new HashMap<>();
            data.forEach(stored::put);
            checkRefcountTree(data, stored);
            for (Map.Entry<Long, Long> e : dataRefs.entrySet()) {
                long b = e.getKey();
                if (b >= data.blocks()) {
                    problems.add("data block " + b + " is mapped but past the data device's " + data.blocks() + " blocks");
                }
                if (!stored.getOrDefault(b, 0L).equals(e.getValue())) {
                    problems.add("data block " + b + " has reference count " + stored.getOrDefault(b, 0L) + " but "
                            + e.getValue() + " mapping entries");
                }
                if (!data.taken(b)) {
                    problems.add("data block " + b + " is mapped but free for allocation");
                }
            }
            for (Map.Entry<Long, Long> e : stored.entrySet()) {
                if (!dataRefs.containsKey(e.getKey())) {
                    problems.add("data block " + e.getKey() + " has reference count " + e.getValue() + " but no mapping");
                }
            }
            if (stored.size() != data.used()) {
                problems.add(stored.size() + " data blocks have references, the space map counts " + data.used());
            }
        }

        /** The tree agrees with the counts in memory ({@code counts}) wherever no change is pending. */
        private void checkRefcountTree(DataSpace data, Map<Long, Long> counts) {
            Map<Long, Long> tree = new HashMap<>();
            data.forEachStored(tree::put);
            for (Map.Entry<Long, Long> e : counts.entrySet()) {
                long b = e.getKey();
                if (!data.pending(b) && !e.getValue().equals(tree.get(b))) {
                    problems.add("data block " + b + " has reference count " + e.getValue() + " but the refcount tree says "
                            + tree.get(b) + ", with no change pending");
                }
            }
            for (Map.Entry<Long, Long> e : tree.entrySet()) {
                if (!data.pending(e.getKey()) && !counts.containsKey(e.getKey())) {
                    problems.add("data block " + e.getKey() + " is in the refcount tree (count " + e.getValue()
                            + ") but has no reference, with no change pending");
                }
            }
        }

        private void checkDetails(long devices) {
            Map<Long, DeviceDetails> details = pmd.catalogue().details();
            BTree tree = pmd.tree();
            List<long[]> roots = new ArrayList<>();
            tree.forEach(devices, (dev, root) -> roots.add(new long[] {dev, root}));
            if (roots.size() != details.size()) {
                problems.add(roots.size() + " devices, " + details.size() + " details");
            }
            for (long[] dr : roots) {
                long[] count = {0};
                tree.forEach(dr[1], (v, bt) -> count[0]++);
                DeviceDetails d = details.get(dr[0]);
                if (d == null || d.mappedBlocks() != count[0]) {
                    problems.add("device " + dr[0] + " maps " + count[0] + " blocks, its details say "
                            + (d == null ? "nothing" : d.mappedBlocks()));
                }
            }
        }
    }
}
