package io.blockwork.pool.snapshot.store;

import io.blockwork.shared.node.store.NodeOwned;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * One snapshot of a volume (table {@code snapshots}, see V6__snapshots.sql): its COW space in
 * extents of the volume's pool (the runs are {@link PoolSegmentEntity}s of owner kind
 * "snapshot"), chunk size, exception store, and whether it is merging into its volume.
 */
@Entity
@Table(name = "snapshots")
public class SnapshotEntity extends NodeOwned {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 64)
    private String name;

    @Column(name = "volume_id", nullable = false)
    private long volumeId;

    @Column(name = "extent_count", nullable = false)
    private long extentCount;

    @Column(name = "chunk_sectors", nullable = false)
    private long chunkSectors;

    @Column(nullable = false, length = 2)
    private String store;

    @Column(name = "merge_exceptions")
    private Long mergeExceptions;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    protected SnapshotEntity() {
        // for JPA
    }

    public SnapshotEntity(String name, long volumeId, long extentCount, long chunkSectors, String store,
                          Instant createdAt) {
        this.name = name;
        this.volumeId = volumeId;
        this.extentCount = extentCount;
        this.chunkSectors = chunkSectors;
        this.store = store;
        this.createdAt = createdAt;
    }

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public long getVolumeId() {
        return volumeId;
    }

    public long getExtentCount() {
        return extentCount;
    }

    public long getChunkSectors() {
        return chunkSectors;
    }

    public String getStore() {
        return store;
    }

    /** Exceptions left when the merge began; null unless merging. */
    public Long getMergeExceptions() {
        return mergeExceptions;
    }

    public void setMergeExceptions(Long mergeExceptions) {
        this.mergeExceptions = mergeExceptions;
    }

    public boolean isMerging() {
        return mergeExceptions != null;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }
}
