package io.blockwork.pool.thin.app;

import io.blockwork.pool.thin.store.ThinPoolEntity;
import io.blockwork.pool.thin.store.ThinPoolRepository;
import io.blockwork.pool.thin.store.ThinVolumeRepository;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.assembly.Restorable;
import io.blockwork.shared.assembly.RestorableSource;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.node.NodeScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * Thin pools and their thin devices at start-up: each pool after its data and metadata devices
 * (or its classic pool), reading its metadata back; each thin volume and snapshot after its pool.
 * One that cannot come back keeps its name, failed or blocked with why. Only this node's pools
 * (and their thin devices) come back; another node's are that node's to assemble.
 */
@Component
class ThinRestorer implements RestorableSource {

    private final ThinPoolRepository pools;
    private final ThinVolumeRepository volumes;
    private final ThinPoolService poolService;
    private final ThinVolumeService volumeService;
    private final DeviceRegistry registry;
    private final NodeScope nodes;

    ThinRestorer(ThinPoolRepository pools, ThinVolumeRepository volumes, ThinPoolService poolService,
                 ThinVolumeService volumeService, DeviceRegistry registry, NodeScope nodes) {
        this.nodes = nodes;
        this.pools = pools;
        this.volumes = volumes;
        this.poolService = poolService;
        this.volumeService = volumeService;
        this.registry = registry;
    }

    @Override
    public List<Restorable> restorables() {
        List<Restorable> out = new ArrayList<>();
        // this node's pools, and the thin volumes and snapshots of those
        Map<Long, ThinPoolEntity> byId = nodes.local(pools.findAll()).stream()
                .collect(Collectors.toMap(ThinPoolEntity::getId, Function.identity()));
        for (ThinPoolEntity p : byId.values()) {
            out.add(new Restorable(ThinPoolService.ref(p), Set.of(poolService.dependencies(p)),
                    () -> poolService.assemble(p), state -> poolService.markUnavailable(p, state)));
        }
        volumes.findAllByOrderByNameAsc().stream().filter(v -> byId.containsKey(v.getThinPoolId())).forEach(v -> {
            DeviceKind kind = v.snapshot() ? DeviceKind.SNAPSHOT : DeviceKind.VOLUME;
            Ref pool = ThinPoolService.ref(byId.get(v.getThinPoolId()));
            out.add(new Restorable(new Ref(kind.label(), v.getName()), Set.of(pool), () -> volumeService.assemble(v),
                    state -> registry.reserve(v.getName(), kind, state)));
        });
        return out;
    }
}
