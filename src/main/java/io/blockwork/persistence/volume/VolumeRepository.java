package io.blockwork.persistence.volume;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface VolumeRepository extends JpaRepository<VolumeRecord, Long> {

    Optional<VolumeRecord> findByName(String name);

    List<VolumeRecord> findAllByOrderByNameAsc();

    List<VolumeRecord> findAllByPoolIdOrderByNameAsc(long poolId);
}
