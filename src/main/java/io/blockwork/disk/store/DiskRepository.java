package io.blockwork.disk.store;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface DiskRepository extends JpaRepository<DiskEntity, Long> {

    Optional<DiskEntity> findByName(String name);

    List<DiskEntity> findAllByOrderByNameAsc();
}
