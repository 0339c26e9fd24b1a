package io.blockwork.pool.thin.store;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface ThinVolumeRepository extends JpaRepository<ThinVolumeEntity, Long> {

    Optional<ThinVolumeEntity> findByName(String name);

    List<ThinVolumeEntity> findAllByOrderByNameAsc();

    /** A pool's volumes and snapshots. */
    List<ThinVolumeEntity> findAllByThinPoolIdOrderByNameAsc(long thinPoolId);

    /** A pool's volumes (not snapshots). */
    List<ThinVolumeEntity> findAllByThinPoolIdAndOriginIdIsNullOrderByNameAsc(long thinPoolId);

    /** Every volume (not snapshots). */
    List<ThinVolumeEntity> findAllByOriginIdIsNullOrderByNameAsc();

    /** A volume's snapshots, oldest first. */
    List<ThinVolumeEntity> findAllByOriginIdOrderByIdAsc(long originId);
}
