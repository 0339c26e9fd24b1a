package io.blockwork.pool.thin.store;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface ThinPoolRepository extends JpaRepository<ThinPoolEntity, Long> {

    Optional<ThinPoolEntity> findByName(String name);

    boolean existsByName(String name);

    List<ThinPoolEntity> findAllByOrderByNameAsc();

    List<ThinPoolEntity> findAllByParentPoolId(long parentPoolId);
}
