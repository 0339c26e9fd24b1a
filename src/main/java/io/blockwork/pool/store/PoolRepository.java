package io.blockwork.pool.store;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface PoolRepository extends JpaRepository<PoolEntity, Long> {

    Optional<PoolEntity> findByName(String name);

    List<PoolEntity> findAllByOrderByNameAsc();
}
