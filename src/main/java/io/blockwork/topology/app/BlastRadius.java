package io.blockwork.topology.app;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the failure of some devices would do to everything stacked on them: which devices would
 * lose their data and which would keep it but lose redundancy (an array above them runs degraded).
 * Pure: the stack is given as nodes with the devices they use and their {@link Redundancy}.
 *
 * <p>A device loses data when it needs a lost device and its redundancy cannot cover the loss; it
 * loses redundancy when it keeps its data but something under it lost a member or its own data
 * was rebuilt from fewer copies.
 */
public final class BlastRadius {

    /** One device of the stack: the devices it is built on and how it tolerates losing them. */
    public record Node(String name, List<String> uses, Redundancy redundancy) {
        public Node {
            uses = List.copyOf(uses);
        }
    }

    /** What would happen to each affected device; both lists sorted by name. */
    public record Impact(List<String> failed, List<String> losesData, List<String> losesRedundancy) {}

    enum Effect { NONE, LOSES_REDUNDANCY, LOSES_DATA }

    private BlastRadius() {}

    /** The effect of losing {@code failed} on every node of {@code stack} (leaves are devices no node lists). */
    public static Impact of(List<Node> stack, Set<String> failed) {
        Map<String, Node> byName = new HashMap<>();
        stack.forEach(n -> byName.put(n.name(), n));
        Map<String, Effect> effects = new HashMap<>();
        for (Node n : stack) {
            effect(n.name(), byName, failed, effects, new HashSet<>());
        }
        List<String> data = new ArrayList<>();
        List<String> redundancy = new ArrayList<>();
        effects.forEach((name, e) -> {
            if (failed.contains(name)) {
                return;
            }
            if (e == Effect.LOSES_DATA) {
                data.add(name);
            } else if (e == Effect.LOSES_REDUNDANCY) {
                redundancy.add(name);
            }
        });
        data.sort(null);
        redundancy.sort(null);
        return new Impact(failed.stream().sorted().toList(), data, redundancy);
    }

    private static Effect effect(String name, Map<String, Node> byName, Set<String> failed,
                                 Map<String, Effect> memo, Set<String> visiting) {
        Effect known = memo.get(name);
        if (known != null) {
            return known;
        }
        Effect result;
        Node node = byName.get(name);
        if (failed.contains(name)) {
            result = Effect.LOSES_DATA;
        } else if (node == null || !visiting.add(name)) {
            result = Effect.NONE; // a leaf, or a cycle (which a real stack never has)
        } else {
            Set<String> lost = new HashSet<>();
            boolean weakened = false;
            for (String used : node.uses()) {
                Effect e = effect(used, byName, failed, memo, visiting);
                if (e == Effect.LOSES_DATA) {
                    lost.add(used);
                } else if (e == Effect.LOSES_REDUNDANCY) {
                    weakened = true;
                }
            }
            if (!lost.isEmpty() && node.redundancy().losesData(lost)) {
                result = Effect.LOSES_DATA;
            } else {
                result = lost.isEmpty() && !weakened ? Effect.NONE : Effect.LOSES_REDUNDANCY;
            }
            visiting.remove(name);
        }
        memo.put(name, result);
        return result;
    }
}
