package io.blockwork.persistence.thin;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface ThinVolumeRepository extends JpaRepository<ThinVolumeRecord, Long> {

    Optional<ThinVolumeRecord> findByName(String name);

    List<ThinVolumeRecord> findAllByOrderByNameAsc();

    /** A pool's volumes and snapshots. */
    List<ThinVolumeRecord> findAllByThinPoolIdOrderByNameAsc(long thinPoolId);

    /** A pool's volumes (not snapshots). */
    List<ThinVolumeRecord> findAllByThinPoolIdAndOriginIdIsNullOrderByNameAsc(long thinPoolId);

    /** Every volume (not snapshots). */
    List<ThinVolumeRecord> findAllByOriginIdIsNullOrderByNameAsc();

    /** A volume's snapshots, oldest first. */
    List<ThinVolumeRecord> findAllByOriginIdOrderByIdAsc(long originId);
}
