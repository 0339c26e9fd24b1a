package io.blockwork.array.store;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface ArrayRepository extends JpaRepository<ArrayEntity, Long> {

    Optional<ArrayEntity> findByName(String name);

    List<ArrayEntity> findAllByOrderByNameAsc();
}
