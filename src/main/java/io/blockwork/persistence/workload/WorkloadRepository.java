package io.blockwork.persistence.workload;

import java.util.List;
import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.JpaRepository;

public interface WorkloadRepository extends JpaRepository<WorkloadRecord, Long> {

    List<WorkloadRecord> findAllByOrderByIdDesc(Limit limit);

    List<WorkloadRecord> findByState(String state);
}
