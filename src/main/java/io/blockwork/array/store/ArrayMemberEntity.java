package io.blockwork.array.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

/**
 * One device attached to an array (table {@code array_members}): its state as last recorded
 * ("in_sync", "rebuilding", "spare", "faulty", "missing") and the slot it fills or last filled.
 * Rows are updated in place when a member changes, since a device name is unique across arrays.
 */
@Entity
@Table(name = "array_members")
public class ArrayMemberEntity {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @ManyToOne(optional = false)
    @JoinColumn(name = "array_id", nullable = false)
    private ArrayEntity array;

    @Column(name = "device_name", nullable = false, unique = true, length = 64)
    private String deviceName;

    @Column(name = "device_kind", nullable = false, length = 16)
    private String deviceKind;

    @Column(nullable = false, length = 16)
    private String state;

    private Integer slot;

    @Column(nullable = false)
    private boolean replacement;

    @Column(name = "fault_reason", length = 1024)
    private String faultReason;

    /** md's write-mostly flag (V21_2): reads avoid the member while another copy can serve them. */
    @Column(name = "write_mostly", nullable = false)
    private boolean writeMostly;

    protected ArrayMemberEntity() {
        // for JPA
    }

    ArrayMemberEntity(ArrayEntity array, String deviceName, String deviceKind) {
        this.array = array;
        this.deviceName = deviceName;
        this.deviceKind = deviceKind;
        this.state = "spare";
    }

    public Long getId() {
        return id;
    }

    public ArrayEntity getArray() {
        return array;
    }

    public String getDeviceName() {
        return deviceName;
    }

    public String getDeviceKind() {
        return deviceKind;
    }

    public String getState() {
        return state;
    }

    public Integer getSlot() {
        return slot;
    }

    public boolean isReplacement() {
        return replacement;
    }

    public String getFaultReason() {
        return faultReason;
    }

    public boolean isWriteMostly() {
        return writeMostly;
    }

    public void setWriteMostly(boolean writeMostly) {
        this.writeMostly = writeMostly;
    }

    /** Records where the member stands now; a fault reason longer than the column is cut. */
    public void set(String newState, Integer newSlot, boolean isReplacement, String reason) {
        this.state = newState;
        this.slot = newSlot;
        this.replacement = isReplacement;
        this.faultReason = reason == null || reason.length() <= 1024 ? reason : reason.substring(0, 1021) + "...";
    }
}
