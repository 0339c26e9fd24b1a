package io.blockwork.persistence.snapshot;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface SnapshotRepository extends JpaRepository<SnapshotRecord, Long> {

    Optional<SnapshotRecord> findByName(String name);

    /** A volume's snapshots, oldest first. */
    List<SnapshotRecord> findAllByVolumeIdOrderByIdAsc(long volumeId);

    List<SnapshotRecord> findAllByOrderByIdAsc();

    boolean existsByVolumeId(long volumeId);
}
