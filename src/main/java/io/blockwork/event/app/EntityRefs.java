package io.blockwork.event.app;

import io.blockwork.array.store.ArrayEntity;
import io.blockwork.array.store.ArrayMemberEntity;
import io.blockwork.disk.store.DiskEntity;
import io.blockwork.dm.store.DmDeviceEntity;
import io.blockwork.export.store.ExportEntity;
import io.blockwork.pool.snapshot.store.SnapshotEntity;
import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.store.PoolSegmentEntity;
import io.blockwork.pool.thin.store.ThinPoolEntity;
import io.blockwork.pool.thin.store.ThinVolumeEntity;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.shared.event.EventKind;
import io.blockwork.workload.store.ExperimentEntity;
import io.blockwork.workload.store.WorkloadEntity;
import java.util.function.BiFunction;

/**
 * Which object a configuration row stands for: the one table from entity classes to event kinds
 * and names. A row the events do not cover (none yet) maps to null.
 *
 * <p>Volumes and snapshots keep their parent by id; {@code loaded} finds the parent row among
 * those the transaction has already loaded (it never queries: it is called while Hibernate
 * flushes), and the parent is left out when it is not there.
 */
final class EntityRefs {

    /** An object an event names. */
    record Ref(EventKind kind, String object, String parent) {}

    private EntityRefs() {}

    /** @param loaded the row of an entity class and id if this transaction has it loaded, else null */
    static Ref of(Object entity, BiFunction<Class<?>, Long, Object> loaded) {
        return switch (entity) {
            case DiskEntity d -> new Ref(EventKind.DISK, d.getName(), null);
            case ArrayEntity a -> new Ref(EventKind.ARRAY, a.getName(), null);
            case ArrayMemberEntity m -> new Ref(EventKind.MEMBER, m.getDeviceName(), m.getArray().getName());
            case DmDeviceEntity d -> new Ref(EventKind.DM, d.getName(), null);
            case PoolEntity p -> new Ref(EventKind.POOL, p.getName(), null);
            case PoolSegmentEntity s -> loaded.apply(PoolEntity.class, s.getPoolId()) instanceof PoolEntity p
                    ? new Ref(EventKind.POOL, p.getName(), null) : null;
            case VolumeEntity v -> new Ref(EventKind.VOLUME, v.getName(),
                    loaded.apply(PoolEntity.class, v.getPoolId()) instanceof PoolEntity p ? p.getName() : null);
            case SnapshotEntity s -> new Ref(EventKind.SNAPSHOT, s.getName(),
                    loaded.apply(VolumeEntity.class, s.getVolumeId()) instanceof VolumeEntity v ? v.getName() : null);
            case ThinPoolEntity p -> new Ref(EventKind.POOL, p.getName(), null);
            case ThinVolumeEntity s when s.snapshot() -> new Ref(EventKind.SNAPSHOT, s.getName(),
                    loaded.apply(ThinVolumeEntity.class, s.getOriginId()) instanceof ThinVolumeEntity v ? v.getName() : null);
            case ThinVolumeEntity v -> new Ref(EventKind.VOLUME, v.getName(),
                    loaded.apply(ThinPoolEntity.class, v.getThinPoolId()) instanceof ThinPoolEntity p ? p.getName() : null);
            case ExportEntity e -> new Ref(EventKind.EXPORT, e.getName(), null);
            case WorkloadEntity w -> new Ref(EventKind.WORKLOAD, String.valueOf(w.getId()), w.getDeviceName());
            case ExperimentEntity x -> new Ref(EventKind.EXPERIMENT, String.valueOf(x.getId()), null);
            default -> null;
        };
    }

    /** A pool's extent rows change with its volumes and snapshots: to the pool, that is a change. */
    static boolean partOfParent(Object entity) {
        return entity instanceof PoolSegmentEntity;
    }
}
