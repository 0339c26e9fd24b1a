package io.blockwork.pool.snapshot.store;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface SnapshotRepository extends JpaRepository<SnapshotEntity, Long> {

    Optional<SnapshotEntity> findByName(String name);

    /** A volume's snapshots, oldest first. */
    List<SnapshotEntity> findAllByVolumeIdOrderByIdAsc(long volumeId);

    List<SnapshotEntity> findAllByOrderByIdAsc();

    boolean existsByVolumeId(long volumeId);
}
