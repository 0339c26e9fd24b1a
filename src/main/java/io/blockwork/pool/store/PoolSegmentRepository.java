package io.blockwork.pool.store;

import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;

public interface PoolSegmentRepository extends JpaRepository<PoolSegmentEntity, Long> {

    /** The pool's allocation map in pool order. */
    List<PoolSegmentEntity> findAllByPoolIdOrderByPoolStartAsc(long poolId);

    /** One owner's runs in its own extent order. */
    List<PoolSegmentEntity> findAllByOwnerKindAndOwnerIdOrderByOwnerStartAsc(String ownerKind, long ownerId);
}
