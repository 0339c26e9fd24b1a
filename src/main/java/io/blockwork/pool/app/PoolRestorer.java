package io.blockwork.pool.app;

import io.blockwork.pool.store.PoolRepository;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.assembly.Restorable;
import io.blockwork.shared.assembly.RestorableSource;
import java.util.List;
import java.util.Set;
import org.springframework.stereotype.Component;

/**
 * Pools at start-up, each after its device: it checks the device still holds every extent and
 * claims it again. A pool that cannot come back blocks its volumes, which keep their names.
 */
@Component
class PoolRestorer implements RestorableSource {

    /** Only this node's objects are assembled here; other nodes' instances assemble theirs. */
    private final NodeScope nodes;

    private final PoolRepository repository;
    private final PoolService pools;

    PoolRestorer(PoolRepository repository, PoolService pools, NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.pools = pools;
    }

    @Override
    public List<Restorable> restorables() {
        return nodes.local(repository.findAllByOrderByNameAsc()).stream()
                .map(p -> new Restorable(PoolService.ref(p), Set.of(new Ref(p.getDeviceKind(), p.getDeviceName())),
                        () -> pools.assemble(p), state -> pools.markUnavailable(p, state)))
                .toList();
    }
}
