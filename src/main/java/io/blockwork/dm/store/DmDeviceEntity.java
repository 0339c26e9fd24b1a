package io.blockwork.dm.store;

import io.blockwork.shared.node.store.NodeOwned;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * The desired configuration of one mapped device (table {@code dm_devices}, see V3__dm.sql): its
 * tables as canonical {@code dmsetup table} text, whether it is suspended, its empty-flush
 * strategy by API label, and the devices its tables use ({@code kind:name}, space-separated), so
 * start-up can assemble it after them without building its tables first.
 */
@Entity
@Table(name = "dm_devices")
public class DmDeviceEntity extends NodeOwned {

    /** Longest table text kept, in characters (the column's length). */
    public static final int MAX_TABLE_CHARS = 1_000_000;

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 64)
    private String name;

    @Column(unique = true, length = 128)
    private String uuid;

    @Column(name = "live_table", nullable = false, length = MAX_TABLE_CHARS)
    private String liveTable;

    @Column(name = "inactive_table", length = MAX_TABLE_CHARS)
    private String inactiveTable;

    @Column(nullable = false)
    private boolean suspended;

    @Column(name = "flush_strategy", nullable = false, length = 16)
    private String flushStrategy;

    @Column(name = "batch_dispatch", nullable = false, length = 16)
    private String batchDispatch;

    @Column(name = "snapshot_locking", nullable = false, length = 16)
    private String snapshotLocking;

    @Column(nullable = false, length = 100_000)
    private String uses;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    protected DmDeviceEntity() {
        // for JPA
    }

    public DmDeviceEntity(String name, String uuid, String flushStrategy, String batchDispatch,
                          String snapshotLocking, Instant createdAt) {
        this.name = name;
        this.uuid = uuid;
        this.flushStrategy = flushStrategy;
        this.batchDispatch = batchDispatch;
        this.snapshotLocking = snapshotLocking;
        this.createdAt = createdAt;
        this.liveTable = "";
        this.uses = "";
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

    /** Null when the device has none. */
    public String getUuid() {
        return uuid;
    }

    /** "" without a live table. */
    public String getLiveTable() {
        return liveTable;
    }

    /** Null without an inactive table. */
    public String getInactiveTable() {
        return inactiveTable;
    }

    public boolean isSuspended() {
        return suspended;
    }

    /** Records the engine's state after an operation: both tables and whether it is suspended. */
    public void setState(String liveTable, String inactiveTable, boolean suspended) {
        this.liveTable = liveTable;
        this.inactiveTable = inactiveTable;
        this.suspended = suspended;
    }

    public String getFlushStrategy() {
        return flushStrategy;
    }

    public String getBatchDispatch() {
        return batchDispatch;
    }

    public String getSnapshotLocking() {
        return snapshotLocking;
    }

    public String getUses() {
        return uses;
    }

    public void setUses(String uses) {
        this.uses = uses;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }
}
