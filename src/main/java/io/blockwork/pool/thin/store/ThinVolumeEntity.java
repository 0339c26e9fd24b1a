package io.blockwork.pool.thin.store;

import io.blockwork.shared.node.store.NodeOwned;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * One thin volume or thin snapshot (table {@code thin_volumes}, see V19__thin_pools.sql): a thin
 * device of a pool by id, with its virtual size; a snapshot also names the volume it is listed
 * under and what it was taken of.
 */
@Entity
@Table(name = "thin_volumes")
public class ThinVolumeEntity extends NodeOwned {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 64)
    private String name;

    @Column(name = "thin_pool_id", nullable = false)
    private long thinPoolId;

    @Column(name = "thin_id", nullable = false)
    private long thinId;

    @Column(name = "size_bytes", nullable = false)
    private long sizeBytes;

    @Column(name = "origin_id")
    private Long originId;

    @Column(length = 64)
    private String source;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    protected ThinVolumeEntity() {
        // for JPA
    }

    public ThinVolumeEntity(String name, long thinPoolId, long thinId, long sizeBytes, Long originId, String source,
                            Instant createdAt) {
        this.name = name;
        this.thinPoolId = thinPoolId;
        this.thinId = thinId;
        this.sizeBytes = sizeBytes;
        this.originId = originId;
        this.source = source;
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

    public long getThinPoolId() {
        return thinPoolId;
    }

    public long getThinId() {
        return thinId;
    }

    public void setThinId(long thinId) {
        this.thinId = thinId;
    }

    public long getSizeBytes() {
        return sizeBytes;
    }

    public void setSizeBytes(long sizeBytes) {
        this.sizeBytes = sizeBytes;
    }

    /** The volume a snapshot is listed under; null for a volume. */
    public Long getOriginId() {
        return originId;
    }

    /** What a snapshot was taken of (its volume, or another snapshot of it); null for a volume. */
    public String getSource() {
        return source;
    }

    public boolean snapshot() {
        return originId != null;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }
}
