package io.blockwork.dm.store;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface DmDeviceRepository extends JpaRepository<DmDeviceEntity, Long> {

    Optional<DmDeviceEntity> findByName(String name);

    Optional<DmDeviceEntity> findByUuid(String uuid);

    List<DmDeviceEntity> findAllByOrderByNameAsc();
}
