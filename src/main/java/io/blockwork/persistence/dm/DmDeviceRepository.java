package io.blockwork.persistence.dm;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

public interface DmDeviceRepository extends JpaRepository<DmDeviceRecord, Long> {

    Optional<DmDeviceRecord> findByName(String name);

    Optional<DmDeviceRecord> findByUuid(String uuid);

    List<DmDeviceRecord> findAllByOrderByNameAsc();
}
