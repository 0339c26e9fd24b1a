package io.blockwork.workload.store;

import java.util.List;
import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.JpaRepository;

public interface ExperimentRepository extends JpaRepository<ExperimentEntity, Long> {

    List<ExperimentEntity> findAllByOrderByIdDesc(Limit limit);

    /** One node's rows in {@code state}: instances sharing a database each look after their own. */
    List<ExperimentEntity> findByStateAndNode(String state, String node);
}
