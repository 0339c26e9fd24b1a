package io.blockwork.shared.device;

import java.util.Objects;

/**
 * Something that uses a block device and so keeps it from being deleted, like a holder in
 * /sys/block/X/holders: an array that has it as a member, a mapped device whose table points at
 * it, a pool on it, an NBD export of it.
 *
 * @param kind what the holder is ("array", "dm", "pool", "export", …)
 * @param name the holder's name within its kind
 */
public record Holder(String kind, String name) {

    /** An NBD export's kind, which the views of what can be exported read without the export feature. */
    public static final String EXPORT = "export";

    public Holder {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return kind + " " + name;
    }
}
