package io.blockwork.service.pool;

import java.util.Objects;

/**
 * Who owns allocated extents of a pool: a kind tag and the owner's id within its kind. Volumes own
 * their data extents as {@code ("volume", id)}; other kinds (a snapshot's copy-on-write space)
 * allocate from the same pool under a tag of their own.
 */
public record ExtentOwner(String kind, long id) {

    public static final String VOLUME = "volume";
    public static final String SNAPSHOT = "snapshot";

    public ExtentOwner {
        Objects.requireNonNull(kind, "kind");
        if (kind.isEmpty() || kind.length() > 16) {
            throw new IllegalArgumentException("an owner kind has 1 to 16 characters: " + kind);
        }
    }

    public static ExtentOwner volume(long id) {
        return new ExtentOwner(VOLUME, id);
    }

    public static ExtentOwner snapshot(long id) {
        return new ExtentOwner(SNAPSHOT, id);
    }

    @Override
    public String toString() {
        return kind + " #" + id;
    }
}
