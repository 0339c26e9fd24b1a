package io.blockwork.persistence.thin;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface ThinPoolRepository extends JpaRepository<ThinPoolRecord, Long> {

    Optional<ThinPoolRecord> findByName(String name);

    boolean existsByName(String name);

    List<ThinPoolRecord> findAllByOrderByNameAsc();

    List<ThinPoolRecord> findAllByParentPoolId(long parentPoolId);
}
