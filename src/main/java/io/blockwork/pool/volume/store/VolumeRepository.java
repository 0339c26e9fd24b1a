package io.blockwork.pool.volume.store;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface VolumeRepository extends JpaRepository<VolumeEntity, Long> {

    Optional<VolumeEntity> findByName(String name);

    List<VolumeEntity> findAllByOrderByNameAsc();

    List<VolumeEntity> findAllByPoolIdOrderByNameAsc(long poolId);
}
