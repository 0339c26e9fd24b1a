package io.blockwork.shared.assembly;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One configured object that start-up assembly rebuilds from the database.
 *
 * @param ref what it is
 * @param dependsOn objects that must be active before it can be assembled (an export's device)
 * @param optionalDeps objects assembled before it if they are configured, but which it can do without,
 *                     so one that is down does not block it (a redundant array's members: one that is
 *                     missing leaves the array degraded, and {@code assemble} decides)
 * @param assemble builds and registers its live engine object; throws with a readable message if it cannot
 * @param unavailable told why the object stays down (failed or blocked), so its feature can keep its
 *                    name taken and report the state
 */
public record Restorable(Ref ref, Set<Ref> dependsOn, Set<Ref> optionalDeps, Runnable assemble,
                         Consumer<ObjectState> unavailable) {
    public Restorable {
        dependsOn = Set.copyOf(dependsOn);
        optionalDeps = Set.copyOf(optionalDeps);
    }

    public Restorable(Ref ref, Set<Ref> dependsOn, Runnable assemble, Consumer<ObjectState> unavailable) {
        this(ref, dependsOn, Set.of(), assemble, unavailable);
    }

    /** Everything that is assembled before it, required or not. */
    Set<Ref> after() {
        Set<Ref> all = new HashSet<>(dependsOn);
        all.addAll(optionalDeps);
        return all;
    }
}
