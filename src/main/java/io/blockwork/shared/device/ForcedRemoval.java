package io.blockwork.shared.device;

import io.blockwork.shared.consistency.EngineChanges;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * What {@code DELETE …?force=true} does before a device is unregistered: removes the holders
 * that may be dropped with it ({@link DroppableHolder}s, e.g. NBD exports), inside the same
 * management operation, so the delete and the drops commit or roll back together. If any other
 * holder remains (an array member, a mapped device's table), nothing is dropped and the delete is
 * refused with device-busy naming those holders.
 *
 * <p>Every feature that deletes block devices calls {@link #dropHolders} when asked to force,
 * then {@link DeviceRegistry#unregister} as usual.
 */
@Component
public class ForcedRemoval {

    private final DeviceRegistry registry;
    private final Map<String, DroppableHolder> byKind;

    public ForcedRemoval(DeviceRegistry registry, List<DroppableHolder> droppable) {
        this.registry = registry;
        this.byKind = droppable.stream().collect(Collectors.toUnmodifiableMap(DroppableHolder::holderKind,
                Function.identity()));
    }

    /** Drops every holder of device {@code name}, or none and throws device-busy if some cannot be dropped. */
    public void dropHolders(String name, EngineChanges changes) {
        RegisteredDevice entry = registry.require(name);
        List<Holder> holders = entry.holders().stream()
                .sorted(Comparator.comparing(Holder::toString)).toList();
        List<String> kept = holders.stream().filter(h -> !byKind.containsKey(h.kind()))
                .map(Holder::toString).toList();
        if (!kept.isEmpty()) {
            throw new ProblemException(Problem.DEVICE_BUSY, entry.kind().label() + " " + name + " is in use by "
                    + String.join(", ", kept) + ", which force does not remove; remove "
                    + (kept.size() == 1 ? "it" : "them") + " first")
                    .with("holders", holders.stream().map(Holder::toString).toList());
        }
        for (Holder h : holders) {
            byKind.get(h.kind()).drop(h.name(), changes);
        }
    }
}
