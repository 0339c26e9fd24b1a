package io.blockwork.pool.app;

import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.snapshot.store.SnapshotEntity;
import io.blockwork.pool.snapshot.store.SnapshotRepository;
import io.blockwork.pool.thin.store.ThinPoolEntity;
import io.blockwork.pool.thin.store.ThinPoolRepository;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.pool.volume.store.VolumeRepository;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * What holds a classic pool's used extents, by name: its volumes, its snapshots' COW space and
 * the data and metadata of thin pools carved from it. Every used extent is in exactly one
 * allocation, so the allocations add up to the pool's used extents.
 */
@Component
class PoolAllocations {

    private final VolumeRepository volumes;
    private final SnapshotRepository snapshots;
    private final ThinPoolRepository thinPools;

    PoolAllocations(VolumeRepository volumes, SnapshotRepository snapshots, ThinPoolRepository thinPools) {
        this.volumes = volumes;
        this.snapshots = snapshots;
        this.thinPools = thinPools;
    }

    /** The pool's allocated runs ({@link PoolExtents#allocated}) with their owners' names, one query per kind. */
    List<PoolAllocation> of(List<PoolExtents.OwnedSegment> allocated) {
        Map<ExtentOwner.Kind, Set<Long>> ids = allocated.stream().collect(Collectors.groupingBy(
                a -> a.owner().kind(), Collectors.mapping(a -> a.owner().id(), Collectors.toSet())));
        Map<ExtentOwner, String> names = new HashMap<>();
        ids.forEach((kind, owners) -> names(kind, owners).forEach((id, name) -> names.put(new ExtentOwner(kind, id), name)));
        return allocated.stream().map(a -> new PoolAllocation(names.getOrDefault(a.owner(), a.owner().toString()),
                a.owner().kind(), a.segment())).toList();
    }

    /** The thin pools carved from the pool, by name (lvs lists them in their volume group). */
    List<String> thinPools(PoolEntity pool) {
        return thinPools.findAllByParentPoolId(pool.getId()).stream().map(ThinPoolEntity::getName).sorted().toList();
    }

    private Map<Long, String> names(ExtentOwner.Kind kind, Set<Long> ids) {
        return switch (kind) {
            case VOLUME -> volumes.findAllById(ids).stream()
                    .collect(Collectors.toMap(VolumeEntity::getId, VolumeEntity::getName));
            case SNAPSHOT_COW -> snapshots.findAllById(ids).stream()
                    .collect(Collectors.toMap(SnapshotEntity::getId, SnapshotEntity::getName));
            case THIN_POOL_DATA, THIN_POOL_METADATA -> thinPools.findAllById(ids).stream()
                    .collect(Collectors.toMap(ThinPoolEntity::getId, ThinPoolEntity::getName));
        };
    }
}
