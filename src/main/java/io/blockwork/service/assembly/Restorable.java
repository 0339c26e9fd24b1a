package io.blockwork.service.assembly;

import java.util.Set;
import java.util.function.Consumer;

/**
 * One configured object that start-up assembly rebuilds from the database.
 *
 * @param ref what it is
 * @param dependsOn objects that must be active before it can be assembled (an array's member disks)
 * @param assemble builds and registers its live engine object; throws with a readable message if it cannot
 * @param unavailable told why the object stays down (failed or blocked), so its feature can keep its
 *                    name taken and report the state
 */
public record Restorable(Ref ref, Set<Ref> dependsOn, Runnable assemble, Consumer<ObjectState> unavailable) {
    public Restorable {
        dependsOn = Set.copyOf(dependsOn);
    }
}
