package io.blockwork.disk.store;

import io.blockwork.shared.node.store.NodeOwned;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/**
 * The desired configuration of one backing disk (table {@code disks}, see V1__disks.sql).
 * Enumerated values are stored as their API labels ("memory", "writeback"), which the service
 * maps; the schema checks the ones it can.
 */
@Entity
@Table(name = "disks")
public class DiskEntity extends NodeOwned {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 64)
    private String name;

    @Column(nullable = false, length = 16)
    private String type;

    @Column(name = "size_bytes", nullable = false)
    private long sizeBytes;

    @Column(name = "logical_block_size", nullable = false)
    private int logicalBlockSize;

    @Column(name = "cache_mode", nullable = false, length = 16)
    private String cacheMode;

    @Column(name = "read_latency_nanos", nullable = false)
    private long readLatencyNanos;

    @Column(name = "write_latency_nanos", nullable = false)
    private long writeLatencyNanos;

    @Column(name = "flush_latency_nanos", nullable = false)
    private long flushLatencyNanos;

    @Column(name = "jitter_nanos", nullable = false)
    private long jitterNanos;

    @Column(name = "queue_depth", nullable = false)
    private int queueDepth;

    @Column(name = "flush_strategy", nullable = false, length = 16)
    private String flushStrategy;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    /** An nbd disk's server (V21_1); null for the other types. */
    @Column(length = 4200)
    private String uri;

    private Integer connections;

    protected DiskEntity() {
        // for JPA
    }

    public DiskEntity(String name, String type, long sizeBytes, int logicalBlockSize, String cacheMode,
                      int queueDepth, String flushStrategy, Instant createdAt) {
        this.name = name;
        this.type = type;
        this.sizeBytes = sizeBytes;
        this.logicalBlockSize = logicalBlockSize;
        this.cacheMode = cacheMode;
        this.queueDepth = queueDepth;
        this.flushStrategy = flushStrategy;
        this.createdAt = createdAt;
    }

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public String getType() {
        return type;
    }

    public long getSizeBytes() {
        return sizeBytes;
    }

    public int getLogicalBlockSize() {
        return logicalBlockSize;
    }

    public String getCacheMode() {
        return cacheMode;
    }

    public long getReadLatencyNanos() {
        return readLatencyNanos;
    }

    public long getWriteLatencyNanos() {
        return writeLatencyNanos;
    }

    public long getFlushLatencyNanos() {
        return flushLatencyNanos;
    }

    public long getJitterNanos() {
        return jitterNanos;
    }

    public void setLatencyNanos(long read, long write, long flush, long jitter) {
        this.readLatencyNanos = read;
        this.writeLatencyNanos = write;
        this.flushLatencyNanos = flush;
        this.jitterNanos = jitter;
    }

    public int getQueueDepth() {
        return queueDepth;
    }

    public void setQueueDepth(int queueDepth) {
        this.queueDepth = queueDepth;
    }

    public String getFlushStrategy() {
        return flushStrategy;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    public String getUri() {
        return uri;
    }

    public Integer getConnections() {
        return connections;
    }

    public void setRemote(String uri, Integer connections) {
        this.uri = uri;
        this.connections = connections;
    }
}
