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
 * One thin pool (table {@code thin_pools}, see V19__thin_pools.sql): where its data and metadata
 * are (two block devices, or extents of a classic pool), its block size and features, its data
 * space in blocks, and the next thin device id it hands out. It belongs to one node (V21_4), with
 * its thin volumes and snapshots.
 */
@Entity
@Table(name = "thin_pools")
public class ThinPoolEntity extends NodeOwned {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 64)
    private String name;

    @Column(name = "data_device", length = 64)
    private String dataDevice;

    @Column(name = "data_kind", length = 16)
    private String dataKind;

    @Column(name = "metadata_device", length = 64)
    private String metadataDevice;

    @Column(name = "metadata_kind", length = 16)
    private String metadataKind;

    @Column(name = "parent_pool_id")
    private Long parentPoolId;

    @Column(name = "block_size_bytes", nullable = false)
    private long blockSizeBytes;

    @Column(name = "data_blocks", nullable = false)
    private long dataBlocks;

    @Column(name = "low_water_blocks", nullable = false)
    private long lowWaterBlocks;

    @Column(name = "error_when_full", nullable = false)
    private boolean errorWhenFull;

    @Column(name = "zero_new_blocks", nullable = false)
    private boolean zeroNewBlocks;

    @Column(nullable = false, length = 16)
    private String discards;

    @Column(name = "next_thin_id", nullable = false)
    private long nextThinId;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    protected ThinPoolEntity() {
        // for JPA
    }

    public ThinPoolEntity(String name, String dataDevice, String dataKind, String metadataDevice, String metadataKind,
                          Long parentPoolId, long blockSizeBytes, long dataBlocks, long lowWaterBlocks,
                          boolean errorWhenFull, boolean zeroNewBlocks, String discards, Instant createdAt) {
        this.name = name;
        this.dataDevice = dataDevice;
        this.dataKind = dataKind;
        this.metadataDevice = metadataDevice;
        this.metadataKind = metadataKind;
        this.parentPoolId = parentPoolId;
        this.blockSizeBytes = blockSizeBytes;
        this.dataBlocks = dataBlocks;
        this.lowWaterBlocks = lowWaterBlocks;
        this.errorWhenFull = errorWhenFull;
        this.zeroNewBlocks = zeroNewBlocks;
        this.discards = discards;
        this.createdAt = createdAt;
    }

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public String getDataDevice() {
        return dataDevice;
    }

    public String getDataKind() {
        return dataKind;
    }

    public String getMetadataDevice() {
        return metadataDevice;
    }

    public String getMetadataKind() {
        return metadataKind;
    }

    public Long getParentPoolId() {
        return parentPoolId;
    }

    public boolean carved() {
        return parentPoolId != null;
    }

    public long getBlockSizeBytes() {
        return blockSizeBytes;
    }

    public long getDataBlocks() {
        return dataBlocks;
    }

    public void setDataBlocks(long dataBlocks) {
        this.dataBlocks = dataBlocks;
    }

    public long getLowWaterBlocks() {
        return lowWaterBlocks;
    }

    public boolean isErrorWhenFull() {
        return errorWhenFull;
    }

    public boolean isZeroNewBlocks() {
        return zeroNewBlocks;
    }

    public String getDiscards() {
        return discards;
    }

    public long getNextThinId() {
        return nextThinId;
    }

    /** Hands out the next thin device id. */
    public long takeThinId() {
        return nextThinId++;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }
}
