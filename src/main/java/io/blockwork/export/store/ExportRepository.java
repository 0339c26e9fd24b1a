package io.blockwork.export.store;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface ExportRepository extends JpaRepository<ExportEntity, Long> {

    Optional<ExportEntity> findByName(String name);

    List<ExportEntity> findAllByOrderByNameAsc();
}
