package io.blockwork.pool.store;

import io.blockwork.shared.node.store.NodeOwned;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * One pool (table {@code pools}, see V5__pools.sql): the block device it divides into extents, by
 * name and kind, the extent size, and how many extents it has. Its allocation map is in
 * {@link PoolSegmentEntity}s.
 */
@Entity
@Table(name = "pools")
public class PoolEntity extends NodeOwned {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 64)
    private String name;

    @Column(name = "device_name", nullable = false, unique = true, length = 64)
    private String deviceName;

    @Column(name = "device_kind", nullable = false, length = 16)
    private String deviceKind;

    @Column(name = "extent_size_bytes", nullable = false)
    private long extentSizeBytes;

    @Column(name = "extent_count", nullable = false)
    private long extentCount;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    protected PoolEntity() {
        // for JPA
    }

    public PoolEntity(String name, String deviceName, String deviceKind, long extentSizeBytes, long extentCount,
                      Instant createdAt) {
        this.name = name;
        this.deviceName = deviceName;
        this.deviceKind = deviceKind;
        this.extentSizeBytes = extentSizeBytes;
        this.extentCount = extentCount;
        this.createdAt = createdAt;
    }

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public String getDeviceName() {
        return deviceName;
    }

    public String getDeviceKind() {
        return deviceKind;
    }

    public long getExtentSizeBytes() {
        return extentSizeBytes;
    }

    public long getExtentCount() {
        return extentCount;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }
}
