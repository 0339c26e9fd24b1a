package io.blockwork.persistence.workload;

import java.util.List;
import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.JpaRepository;

public interface WorkloadRepository extends JpaRepository<WorkloadRecord, Long> {

    List<WorkloadRecord> findAllByOrderByIdDesc(Limit limit);

    /** One node's rows in {@code state}: instances sharing a database each look after their own. */
    List<WorkloadRecord> findByStateAndNode(String state, String node);
}
