package io.blockwork.shared.assembly;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Orders restorable objects so each comes after everything it depends on (Kahn's algorithm);
 * ties go by kind and name, so the order is the same on every start. Objects on a dependency
 * cycle are returned separately: none of them can ever be assembled.
 */
record AssemblyOrder(List<Restorable> ordered, List<Restorable> onCycle) {

    private static final Comparator<Restorable> BY_REF =
            Comparator.comparing((Restorable r) -> r.ref().kind()).thenComparing(r -> r.ref().name());

    static AssemblyOrder of(List<Restorable> objects) {
        Map<Ref, Restorable> byRef = new HashMap<>();
        objects.forEach(r -> byRef.put(r.ref(), r));
        Map<Ref, Integer> waitingFor = new HashMap<>();
        Map<Ref, List<Restorable>> dependents = new HashMap<>();
        for (Restorable r : objects) {
            int known = 0;
            for (Ref dep : r.after()) {
                if (byRef.containsKey(dep)) {
                    known++;
                    dependents.computeIfAbsent(dep, k -> new ArrayList<>()).add(r);
                }
            }
            waitingFor.put(r.ref(), known);
        }
        PriorityQueue<Restorable> ready = new PriorityQueue<>(BY_REF);
        objects.stream().filter(r -> waitingFor.get(r.ref()) == 0).forEach(ready::add);
        List<Restorable> ordered = new ArrayList<>();
        while (!ready.isEmpty()) {
            Restorable next = ready.poll();
            ordered.add(next);
            for (Restorable d : dependents.getOrDefault(next.ref(), List.of())) {
                if (waitingFor.merge(d.ref(), -1, Integer::sum) == 0) {
                    ready.add(d);
                }
            }
        }
        List<Restorable> onCycle = objects.stream()
                .filter(r -> waitingFor.get(r.ref()) > 0).sorted(BY_REF).toList();
        return new AssemblyOrder(ordered, onCycle);
    }
}
