package io.blockwork.pool.thin.app;

import io.blockwork.engine.dm.thin.PoolFeatures;
import io.blockwork.pool.app.ThinPoolUsage;
import io.blockwork.shared.problem.Differences;
import io.blockwork.shared.problem.ProblemException;
import java.util.Locale;

/**
 * A thin pool to create, as the API gives it: either on two block devices ({@code dataDevice},
 * {@code metadataDevice}), or carved from a classic pool ({@code from}, {@code size}, and
 * optionally {@code metadataSize}), as {@code lvcreate --type thin-pool} does.
 *
 * @param chunkSizeBytes the data block size; null for 64 KiB
 * @param lowWaterBytes free data space at or below which the pool raises its event; null for none
 * @param errorWhenFull fail writes at once when the data space is full (default: queue them for 60 s)
 * @param zero zero new blocks before a partial first write (default true)
 * @param discards passdown (default), nopassdown or ignore
 */
public record NewThinPool(String name, String dataDevice, String metadataDevice, String from, Long sizeBytes,
                          Long metadataSizeBytes, Long chunkSizeBytes, Long lowWaterBytes, Boolean errorWhenFull,
                          Boolean zero, String discards) {

    public static final long DEFAULT_CHUNK = 64L << 10;
    public static final long MIN_CHUNK = 64L << 10;
    public static final long MAX_CHUNK = 1L << 30;
    /** The kernel's advice: at least 2 MiB of metadata. */
    public static final long MIN_METADATA = 2L << 20;
    /** Metadata per data block allowed by default (a mapping and a reference count in half-full nodes, plus snapshots). */
    public static final long METADATA_PER_BLOCK = 64;

    boolean carved() {
        return from != null;
    }

    long chunk() {
        long c = chunkSizeBytes == null ? DEFAULT_CHUNK : chunkSizeBytes;
        if (c < MIN_CHUNK || c > MAX_CHUNK || Long.bitCount(c) != 1) {
            throw ProblemException.invalid("chunkSize", "the chunk size is a power of two from 64 KiB to 1 GiB, not "
                    + c + " bytes").with("chunkSizeBytes", c);
        }
        return c;
    }

    String discardMode() {
        String d = discards == null ? "passdown" : discards.toLowerCase(Locale.ROOT);
        if (!d.equals("passdown") && !d.equals("nopassdown") && !d.equals("ignore")) {
            throw ProblemException.invalid("discards", "discards is passdown, nopassdown or ignore, not '" + discards + "'");
        }
        return d;
    }

    /**
     * How thin pool {@code is} differs from this request (docs/api.md, scripting contract): sizes
     * are compared as the create rounds them, to whole extents of the classic pool it was carved
     * from ({@code parentExtentBytes}, null for a pool on devices) and whole chunks.
     */
    public Differences differencesFrom(ThinPoolUsage is, Long parentExtentBytes) {
        long chunk = chunk();
        Differences d = Differences.of("pool", name)
                .field("dataDevice", dataDevice, is.dataDevice())
                .field("metadataDevice", metadataDevice, is.metadataDevice())
                .field("from", from, is.from())
                .field("chunkSize", chunk, is.chunkSizeBytes())
                .field("errorWhenFull", Boolean.TRUE.equals(errorWhenFull), is.errorWhenFull())
                .field("zero", zero == null || zero, is.zero())
                .field("discards", discardMode(), is.discards());
        if (parentExtentBytes != null && sizeBytes != null && sizeBytes > 0) {
            d.field("size", carvedDataBytes(sizeBytes, chunk, parentExtentBytes), is.dataBytes());
        }
        if (parentExtentBytes != null && metadataSizeBytes != null) {
            d.field("metadataSize", Math.ceilDiv(metadataSizeBytes, parentExtentBytes) * parentExtentBytes,
                    is.metadataBytes());
        }
        return d;
    }

    /** The data space carved for {@code sizeBytes}: whole extents of the parent, whole chunks of those. */
    static long carvedDataBytes(long sizeBytes, long chunk, long extentBytes) {
        return Math.ceilDiv(Math.max(sizeBytes, chunk), extentBytes) * extentBytes / chunk * chunk;
    }

    /** The pool's default metadata size for {@code dataBytes} of data: 64 bytes a block, at least 2 MiB. */
    static long defaultMetadata(long dataBytes, long chunk) {
        return Math.max(MIN_METADATA, dataBytes / chunk * METADATA_PER_BLOCK);
    }

    /** The thin-pool table's features for a record's settings. */
    static PoolFeatures features(boolean errorWhenFull, boolean zero, String discards) {
        return new PoolFeatures(zero, !discards.equals("ignore"), !discards.equals("nopassdown"), false, errorWhenFull);
    }
}
