package io.blockwork.array.store;

import io.blockwork.shared.node.store.NodeOwned;
import jakarta.persistence.CascadeType;
import jakarta.persistence.CollectionTable;
import jakarta.persistence.Column;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.MapKeyColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One md array (table {@code arrays}, see V2__arrays.sql and V17__array_metadata.sql): the
 * desired configuration. For arrays with metadata ("1.2") the members' superblocks record what
 * happened to them and decide assembly; for arrays without ("none") these rows are the only
 * record. Labels are the API's ("raid10", "fanout"); the members are loaded with the array, since
 * every use of an array needs them.
 */
@Entity
@Table(name = "arrays")
public class ArrayEntity extends NodeOwned {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 64)
    private String name;

    @Column(nullable = false, length = 16)
    private String level;

    @Column(name = "raid_devices", nullable = false)
    private int raidDevices;

    @Column(name = "chunk_bytes", nullable = false)
    private long chunkBytes;

    @Column(name = "layout_code")
    private Integer layoutCode;

    @Column(name = "member_bytes", nullable = false)
    private long memberBytes;

    @Column(name = "flush_strategy", nullable = false, length = 16)
    private String flushStrategy;

    @Column(name = "barrier_strategy", nullable = false, length = 16)
    private String barrierStrategy;

    @Column(name = "speed_min_kibps", nullable = false)
    private long speedMinKiBps;

    @Column(name = "speed_max_kibps", nullable = false)
    private long speedMaxKiBps;

    @Column(name = "resync_pending", nullable = false)
    private boolean resyncPending;

    @Column(name = "stripe_cache_size")
    private Integer stripeCacheSize;

    @Column(name = "journal_device", length = 64)
    private String journalDevice;

    @Column(name = "journal_kind", length = 16)
    private String journalKind;

    @Column(name = "dirty", nullable = false)
    private boolean dirty;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Column(nullable = false, length = 8)
    private String metadata = "none";

    /** The array uuid as mdadm prints it; null without metadata. */
    @Column(length = 35)
    private String uuid;

    @Column(name = "bitmap_chunk_bytes")
    private Long bitmapChunkBytes;

    @OneToMany(mappedBy = "array", cascade = CascadeType.ALL, orphanRemoval = true, fetch = FetchType.EAGER)
    @OrderBy("id")
    private List<ArrayMemberEntity> members = new ArrayList<>();

    /** Device name to the slot it filled before it was removed (V13_6__array_former_slots.sql). */
    @ElementCollection(fetch = FetchType.EAGER)
    @CollectionTable(name = "array_former_slots", joinColumns = @JoinColumn(name = "array_id"))
    @MapKeyColumn(name = "device_name", length = 64)
    @Column(name = "slot", nullable = false)
    private Map<String, Integer> formerSlots = new HashMap<>();

    protected ArrayEntity() {
        // for JPA
    }

    public ArrayEntity(String name, String level, int raidDevices, long chunkBytes, Integer layoutCode,
                       long memberBytes, String flushStrategy, String barrierStrategy, boolean resyncPending,
                       Instant createdAt) {
        this.name = name;
        this.level = level;
        this.raidDevices = raidDevices;
        this.chunkBytes = chunkBytes;
        this.layoutCode = layoutCode;
        this.memberBytes = memberBytes;
        this.flushStrategy = flushStrategy;
        this.barrierStrategy = barrierStrategy;
        this.resyncPending = resyncPending;
        this.createdAt = createdAt;
    }

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public String getLevel() {
        return level;
    }

    public int getRaidDevices() {
        return raidDevices;
    }

    public long getChunkBytes() {
        return chunkBytes;
    }

    public Integer getLayoutCode() {
        return layoutCode;
    }

    public long getMemberBytes() {
        return memberBytes;
    }

    public String getFlushStrategy() {
        return flushStrategy;
    }

    public String getBarrierStrategy() {
        return barrierStrategy;
    }

    public long getSpeedMinKiBps() {
        return speedMinKiBps;
    }

    public long getSpeedMaxKiBps() {
        return speedMaxKiBps;
    }

    public void setSpeedLimits(long minKiBps, long maxKiBps) {
        this.speedMinKiBps = minKiBps;
        this.speedMaxKiBps = maxKiBps;
    }

    public boolean isResyncPending() {
        return resyncPending;
    }

    public void setResyncPending(boolean resyncPending) {
        this.resyncPending = resyncPending;
    }

    /** raid4/5/6's stripe cache size in stripe heads; null for the other levels. */
    public Integer getStripeCacheSize() {
        return stripeCacheSize;
    }

    public void setStripeCacheSize(Integer stripeCacheSize) {
        this.stripeCacheSize = stripeCacheSize;
    }

    /** raid4/5/6's write-journal device (any block device kind), or null. */
    public String getJournalDevice() {
        return journalDevice;
    }

    public String getJournalKind() {
        return journalKind;
    }

    public void setJournalDevice(String device, String kind) {
        this.journalDevice = device;
        this.journalKind = kind;
    }

    /** True while the array runs, until a clean stop: a dirty parity array resyncs when assembled. */
    public boolean isDirty() {
        return dirty;
    }

    public void setDirty(boolean dirty) {
        this.dirty = dirty;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    public String getMetadata() {
        return metadata;
    }

    public String getUuid() {
        return uuid;
    }

    /** The write-intent bitmap's chunk, or null without a bitmap. */
    public Long getBitmapChunkBytes() {
        return bitmapChunkBytes;
    }

    /** md metadata: {@code "none"}, or {@code "1.2"} with the array's uuid and the bitmap chunk (null for none). */
    public void setMetadata(String format, String arrayUuid, Long bitmapChunk) {
        this.metadata = format;
        this.uuid = arrayUuid;
        this.bitmapChunkBytes = bitmapChunk;
    }

    /** The members, in the order they were first recorded. */
    public List<ArrayMemberEntity> getMembers() {
        return members;
    }

    public Optional<ArrayMemberEntity> member(String deviceName) {
        return members.stream().filter(m -> m.getDeviceName().equals(deviceName)).findFirst();
    }

    public ArrayMemberEntity addMember(String deviceName, String deviceKind) {
        ArrayMemberEntity m = new ArrayMemberEntity(this, deviceName, deviceKind);
        members.add(m);
        return m;
    }

    public void removeMember(ArrayMemberEntity member) {
        members.remove(member);
    }

    /** Where members removed from the array may be re-added (device name to slot); changed in place. */
    public Map<String, Integer> getFormerSlots() {
        return formerSlots;
    }
}
