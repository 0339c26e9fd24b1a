package io.blockwork.pool.volume.store;

import io.blockwork.shared.node.store.NodeOwned;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * One volume (table {@code volumes}, see V5__pools.sql): its name (a block device name), its pool
 * and its size in extents. Where its extents lie is in {@link PoolSegmentEntity}s owned by
 * {@code ("volume", id)}.
 */
@Entity
@Table(name = "volumes")
public class VolumeEntity extends NodeOwned {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 64)
    private String name;

    @Column(name = "pool_id", nullable = false)
    private long poolId;

    @Column(name = "extent_count", nullable = false)
    private long extentCount;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    protected VolumeEntity() {
        // for JPA
    }

    public VolumeEntity(String name, long poolId, long extentCount, Instant createdAt) {
        this.name = name;
        this.poolId = poolId;
        this.extentCount = extentCount;
        this.createdAt = createdAt;
    }

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public long getPoolId() {
        return poolId;
    }

    public long getExtentCount() {
        return extentCount;
    }

    public void setExtentCount(long extentCount) {
        this.extentCount = extentCount;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }
}
