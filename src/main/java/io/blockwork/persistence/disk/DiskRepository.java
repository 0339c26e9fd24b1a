package io.blockwork.persistence.disk;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface DiskRepository extends JpaRepository<DiskRecord, Long> {

    Optional<DiskRecord> findByName(String name);

    List<DiskRecord> findAllByOrderByNameAsc();
}
