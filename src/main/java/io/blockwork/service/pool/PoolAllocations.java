package io.blockwork.service.pool;

import io.blockwork.persistence.pool.PoolEntity;
import io.blockwork.persistence.pool.PoolSegmentEntity;
import io.blockwork.persistence.pool.PoolSegmentRepository;
import io.blockwork.persistence.snapshot.SnapshotEntity;
import io.blockwork.persistence.snapshot.SnapshotRepository;
import io.blockwork.persistence.thin.ThinPoolEntity;
import io.blockwork.persistence.thin.ThinPoolRepository;
import io.blockwork.persistence.volume.VolumeEntity;
import io.blockwork.persistence.volume.VolumeRepository;
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

    private final PoolSegmentRepository segments;
    private final VolumeRepository volumes;
    private final SnapshotRepository snapshots;
    private final ThinPoolRepository thinPools;

    PoolAllocations(PoolSegmentRepository segments, VolumeRepository volumes, SnapshotRepository snapshots,
                    ThinPoolRepository thinPools) {
        this.segments = segments;
        this.volumes = volumes;
        this.snapshots = snapshots;
        this.thinPools = thinPools;
    }

    /** Every run of the pool's allocated extents, in pool order, with its owner's name and kind. */
    List<PoolAllocation> of(PoolEntity pool) {
        List<PoolSegmentEntity> runs = segments.findAllByPoolIdOrderByPoolStartAsc(pool.getId());
        Map<ExtentOwner.Kind, Set<Long>> ids = runs.stream().collect(Collectors.groupingBy(
                s -> ExtentOwner.Kind.ofTag(s.getOwnerKind()), Collectors.mapping(PoolSegmentEntity::getOwnerId,
                        Collectors.toSet())));
        Map<ExtentOwner, String> names = new HashMap<>();
        ids.forEach((kind, owners) -> names(kind, owners).forEach((id, name) -> names.put(new ExtentOwner(kind, id), name)));
        return runs.stream().map(s -> {
            ExtentOwner owner = new ExtentOwner(ExtentOwner.Kind.ofTag(s.getOwnerKind()), s.getOwnerId());
            return new PoolAllocation(names.getOrDefault(owner, owner.toString()), owner.kind(),
                    new Segment(s.getOwnerStart(), s.getPoolStart(), s.getExtentCount()));
        }).toList();
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
