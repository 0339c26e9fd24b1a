package io.blockwork.service.event;

import io.blockwork.persistence.array.ArrayMemberRecord;
import io.blockwork.persistence.array.ArrayRecord;
import io.blockwork.persistence.disk.DiskRecord;
import io.blockwork.persistence.dm.DmDeviceRecord;
import io.blockwork.persistence.export.ExportRecord;
import io.blockwork.persistence.pool.PoolRecord;
import io.blockwork.persistence.pool.PoolSegmentRecord;
import io.blockwork.persistence.snapshot.SnapshotRecord;
import io.blockwork.persistence.thin.ThinPoolRecord;
import io.blockwork.persistence.thin.ThinVolumeRecord;
import io.blockwork.persistence.volume.VolumeRecord;
import io.blockwork.persistence.workload.ExperimentRecord;
import io.blockwork.persistence.workload.WorkloadRecord;
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
            case DiskRecord d -> new Ref(EventKind.DISK, d.getName(), null);
            case ArrayRecord a -> new Ref(EventKind.ARRAY, a.getName(), null);
            case ArrayMemberRecord m -> new Ref(EventKind.MEMBER, m.getDeviceName(), m.getArray().getName());
            case DmDeviceRecord d -> new Ref(EventKind.DM, d.getName(), null);
            case PoolRecord p -> new Ref(EventKind.POOL, p.getName(), null);
            case PoolSegmentRecord s -> loaded.apply(PoolRecord.class, s.getPoolId()) instanceof PoolRecord p
                    ? new Ref(EventKind.POOL, p.getName(), null) : null;
            case VolumeRecord v -> new Ref(EventKind.VOLUME, v.getName(),
                    loaded.apply(PoolRecord.class, v.getPoolId()) instanceof PoolRecord p ? p.getName() : null);
            case SnapshotRecord s -> new Ref(EventKind.SNAPSHOT, s.getName(),
                    loaded.apply(VolumeRecord.class, s.getVolumeId()) instanceof VolumeRecord v ? v.getName() : null);
            case ThinPoolRecord p -> new Ref(EventKind.POOL, p.getName(), null);
            case ThinVolumeRecord s when s.snapshot() -> new Ref(EventKind.SNAPSHOT, s.getName(),
                    loaded.apply(ThinVolumeRecord.class, s.getOriginId()) instanceof ThinVolumeRecord v ? v.getName() : null);
            case ThinVolumeRecord v -> new Ref(EventKind.VOLUME, v.getName(),
                    loaded.apply(ThinPoolRecord.class, v.getThinPoolId()) instanceof ThinPoolRecord p ? p.getName() : null);
            case ExportRecord e -> new Ref(EventKind.EXPORT, e.getName(), null);
            case WorkloadRecord w -> new Ref(EventKind.WORKLOAD, String.valueOf(w.getId()), w.getDeviceName());
            case ExperimentRecord x -> new Ref(EventKind.EXPERIMENT, String.valueOf(x.getId()), null);
            default -> null;
        };
    }

    /** A pool's extent rows change with its volumes and snapshots: to the pool, that is a change. */
    static boolean partOfParent(Object entity) {
        return entity instanceof PoolSegmentRecord;
    }
}
