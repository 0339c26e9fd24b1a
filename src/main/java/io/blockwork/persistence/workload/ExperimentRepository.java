package io.blockwork.persistence.workload;

import java.util.List;
import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.JpaRepository;

public interface ExperimentRepository extends JpaRepository<ExperimentRecord, Long> {

    List<ExperimentRecord> findAllByOrderByIdDesc(Limit limit);

    List<ExperimentRecord> findByState(String state);
}
