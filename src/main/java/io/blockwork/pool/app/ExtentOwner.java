package io.blockwork.pool.app;

import java.util.Arrays;
import java.util.Objects;

/**
 * Who owns allocated extents of a pool: what kind of thing it is and the owner's id within its
 * kind (a volume's, a snapshot's, a thin pool's record id). Every allocation of a pool is one of
 * the {@link Kind}s, so a pool can say what each of its used extents holds.
 */
public record ExtentOwner(Kind kind, long id) {

    /**
     * What an owner's extents hold.
     *
     * @param tag the kind as the allocation map stores it ({@code pool_segments.owner_kind})
     * @param role the kind as the API names it
     */
    public enum Kind {
        /** A volume's data. */
        VOLUME("volume", "volume"),
        /** A snapshot's copy-on-write space ({@code <snapshot>-cow}). */
        SNAPSHOT_COW("snapshot", "snapshot-cow"),
        /** A thin pool's data space carved from the pool ({@code <thin pool>-tdata}). */
        THIN_POOL_DATA("thin-data", "thin-pool-data"),
        /** A thin pool's metadata space carved from the pool ({@code <thin pool>-tmeta}). */
        THIN_POOL_METADATA("thin-meta", "thin-pool-metadata");

        private final String tag;
        private final String role;

        Kind(String tag, String role) {
            this.tag = tag;
            this.role = role;
        }

        public String tag() {
            return tag;
        }

        public String role() {
            return role;
        }

        /** The kind stored as {@code tag}; an unknown tag is a corrupt allocation map. */
        public static Kind ofTag(String tag) {
            return Arrays.stream(values()).filter(k -> k.tag.equals(tag)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("unknown extent owner kind '" + tag + "'"));
        }
    }

    public ExtentOwner {
        Objects.requireNonNull(kind, "kind");
    }

    public static ExtentOwner volume(long id) {
        return new ExtentOwner(Kind.VOLUME, id);
    }

    public static ExtentOwner snapshot(long id) {
        return new ExtentOwner(Kind.SNAPSHOT_COW, id);
    }

    public static ExtentOwner thinPoolData(long id) {
        return new ExtentOwner(Kind.THIN_POOL_DATA, id);
    }

    public static ExtentOwner thinPoolMetadata(long id) {
        return new ExtentOwner(Kind.THIN_POOL_METADATA, id);
    }

    @Override
    public String toString() {
        return kind.tag() + " #" + id;
    }
}
