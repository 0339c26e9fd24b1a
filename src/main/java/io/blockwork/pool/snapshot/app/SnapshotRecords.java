package io.blockwork.pool.snapshot.app;

import io.blockwork.pool.snapshot.store.SnapshotEntity;
import io.blockwork.pool.snapshot.store.SnapshotRepository;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.shared.consistency.Records;
import io.blockwork.pool.app.ExtentOwner;
import io.blockwork.pool.app.PoolExtents;
import io.blockwork.shared.problem.ProblemException;
import java.util.List;
import java.util.Optional;
import org.springframework.stereotype.Component;

/** Snapshot records and their COW extents, as every snapshot operation reads and changes them. */
@Component
class SnapshotRecords {

    private final SnapshotRepository repository;
    private final PoolExtents extents;

    SnapshotRecords(SnapshotRepository repository, PoolExtents extents) {
        this.repository = repository;
        this.extents = extents;
    }

    /** The volume's snapshots, oldest first. */
    List<SnapshotEntity> of(VolumeEntity volume) {
        return repository.findAllByVolumeIdOrderByIdAsc(volume.getId());
    }

    List<String> names(VolumeEntity volume) {
        return of(volume).stream().map(SnapshotEntity::getName).toList();
    }

    /** The snapshot the volume is merging, if any. */
    Optional<SnapshotEntity> merging(VolumeEntity volume) {
        return of(volume).stream().filter(SnapshotEntity::isMerging).findFirst();
    }

    /** Snapshot {@code name} of {@code volume}, or not-found. */
    SnapshotEntity of(VolumeEntity volume, String name) {
        return repository.findByName(name).filter(s -> s.getVolumeId() == volume.getId())
                .orElseThrow(() -> ProblemException.notFound("snapshot of volume " + volume.getName(), name));
    }

    Optional<SnapshotEntity> find(String name) {
        return repository.findByName(name);
    }

    SnapshotEntity save(SnapshotEntity record) {
        return Records.save(repository, record, "snapshot " + record.getName());
    }

    /** The snapshot's COW extents are freed and its record deleted. */
    void forget(SnapshotEntity record) {
        extents.release(owner(record));
        repository.delete(record);
        repository.flush();
    }

    static ExtentOwner owner(SnapshotEntity record) {
        return ExtentOwner.snapshot(record.getId());
    }
}
