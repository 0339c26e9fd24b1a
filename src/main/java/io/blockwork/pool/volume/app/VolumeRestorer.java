package io.blockwork.pool.volume.app;

import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.store.PoolRepository;
import io.blockwork.pool.volume.store.VolumeRepository;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.assembly.Restorable;
import io.blockwork.shared.assembly.RestorableSource;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.pool.app.PoolService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * Volumes at start-up, each after its pool: its table is rebuilt from its segments, then its
 * snapshots ({@link VolumeSnapshots#assemble}) before anything can write to it. A volume that
 * cannot come back keeps its name, failed or blocked with why.
 */
@Component
class VolumeRestorer implements RestorableSource {

    /** Only this node's objects are assembled here; other nodes' instances assemble theirs. */
    private final NodeScope nodes;

    private final PoolRepository pools;
    private final VolumeRepository repository;
    private final VolumeService volumes;
    private final VolumeSnapshots snapshots;
    private final DeviceRegistry registry;

    VolumeRestorer(PoolRepository pools, VolumeRepository repository, VolumeService volumes,
                   VolumeSnapshots snapshots, DeviceRegistry registry, NodeScope nodes) {
        this.nodes = nodes;
        this.pools = pools;
        this.repository = repository;
        this.volumes = volumes;
        this.snapshots = snapshots;
        this.registry = registry;
    }

    @Override
    public List<Restorable> restorables() {
        Map<Long, PoolEntity> byId = pools.findAll().stream()
                .collect(Collectors.toMap(PoolEntity::getId, Function.identity()));
        return nodes.local(repository.findAllByOrderByNameAsc()).stream()
                .map(v -> new Restorable(VolumeService.ref(v), Set.of(PoolService.ref(byId.get(v.getPoolId()))),
                        () -> {
                            volumes.assemble(v);
                            snapshots.assemble(v);
                        },
                        state -> registry.reserve(v.getName(), DeviceKind.VOLUME, state)))
                .toList();
    }
}
