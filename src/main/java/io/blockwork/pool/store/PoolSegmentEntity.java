package io.blockwork.pool.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * One run of a pool's allocation map (table {@code pool_segments}, see V5__pools.sql): extents
 * {@code poolStart .. poolStart + extentCount - 1} of the pool belong to the owner
 * {@code (ownerKind, ownerId)} as its extents {@code ownerStart ..}.
 */
@Entity
@Table(name = "pool_segments")
public class PoolSegmentEntity {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(name = "pool_id", nullable = false)
    private long poolId;

    @Column(name = "owner_kind", nullable = false, length = 16)
    private String ownerKind;

    @Column(name = "owner_id", nullable = false)
    private long ownerId;

    @Column(name = "owner_start", nullable = false)
    private long ownerStart;

    @Column(name = "pool_start", nullable = false)
    private long poolStart;

    @Column(name = "extent_count", nullable = false)
    private long extentCount;

    protected PoolSegmentEntity() {
        // for JPA
    }

    public PoolSegmentEntity(long poolId, String ownerKind, long ownerId, long ownerStart, long poolStart,
                             long extentCount) {
        this.poolId = poolId;
        this.ownerKind = ownerKind;
        this.ownerId = ownerId;
        this.ownerStart = ownerStart;
        this.poolStart = poolStart;
        this.extentCount = extentCount;
    }

    public Long getId() {
        return id;
    }

    public long getPoolId() {
        return poolId;
    }

    public String getOwnerKind() {
        return ownerKind;
    }

    public long getOwnerId() {
        return ownerId;
    }

    public long getOwnerStart() {
        return ownerStart;
    }

    public long getPoolStart() {
        return poolStart;
    }

    public long getExtentCount() {
        return extentCount;
    }

    public void setExtentCount(long extentCount) {
        this.extentCount = extentCount;
    }
}
