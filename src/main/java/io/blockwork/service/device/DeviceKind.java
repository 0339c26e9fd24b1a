package io.blockwork.service.device;

/** The kinds of block device that share one name space. Later features add a constant each. */
public enum DeviceKind {
    DISK("disk"),
    ARRAY("array"),
    DM("dm"),
    VOLUME("volume"),
    SNAPSHOT("snapshot"),
    /** A volume's or snapshot's internal mapped device: {@code <volume>-real}, {@code <snapshot>-cow}. */
    HIDDEN("hidden");

    private final String label;

    DeviceKind(String label) {
        this.label = label;
    }

    /** The name the API uses. */
    public String label() {
        return label;
    }
}
