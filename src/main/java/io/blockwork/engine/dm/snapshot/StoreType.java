package io.blockwork.engine.dm.snapshot;

import java.util.Locale;

/**
 * The exception store a snapshot table line asks for, by its table code: {@code N} transient
 * (in memory, lost with the table), {@code P} persistent (the kernel's on-disk layout on the COW
 * device), {@code PO} persistent with overflow: when the COW device is full a snapshot write
 * makes the snapshot <em>overflow</em> (writes fail, reads keep working) instead of invalidating it.
 */
public enum StoreType {
    TRANSIENT("N"),
    PERSISTENT("P"),
    PERSISTENT_OVERFLOW("PO");

    private final String code;

    StoreType(String code) {
        this.code = code;
    }

    /** As the table prints it. */
    public String code() {
        return code;
    }

    public boolean persistent() {
        return this != TRANSIENT;
    }

    /** True for {@code PO}: a full store overflows a snapshot write rather than invalidating. */
    public boolean overflowSupported() {
        return this == PERSISTENT_OVERFLOW;
    }

    /**
     * Parses a table code, case-insensitively as the kernel does.
     *
     * @throws IllegalArgumentException with the kernel's message
     */
    public static StoreType fromCode(String s) {
        String c = s.toUpperCase(Locale.ROOT);
        return switch (c) {
            case "N" -> TRANSIENT;
            case "P" -> PERSISTENT;
            case "PO" -> PERSISTENT_OVERFLOW;
            default -> throw new IllegalArgumentException(c.startsWith("P")
                    ? "Unsupported persistent store option '" + s + "' (P or PO)"
                    : "Exception store type is not P, PO or N: '" + s + "'");
        };
    }
}
