package io.blockwork.array.app;

import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.metadata.MdUuid;
import io.blockwork.engine.md.metadata.MetadataSpec;
import io.blockwork.shared.problem.Differences;
import io.blockwork.shared.problem.ProblemException;
import java.util.List;
import java.util.Locale;

/**
 * What {@code mdadm --create} takes, as plain values from the API; null means the default.
 * Checked by {@link ArrayService#create}, which blames the request field at fault.
 *
 * @param members device names in slot order
 * @param spares device names added as spares once the array exists
 * @param speedMinBytes resync/recovery floor in bytes per second (md's speed_limit_min)
 * @param speedMaxBytes resync/recovery ceiling in bytes per second (md's speed_limit_max)
 * @param assumeClean skip the initial resync (mdadm's {@code --assume-clean}): the members already agree
 * @param metadata {@code 1.2} (default; {@code none} with a journal) or {@code none}
 * @param bitmap {@code internal} or {@code none}; null for the default (internal for redundant levels with metadata)
 * @param bitmapChunkBytes the bitmap's chunk; null for the default
 * @param bitmapDelaySeconds the bitmap daemon's sleep (mdadm's {@code --delay}); null for md's 5 s
 * @param stripeCacheSize raid4/5/6: the stripe cache's size in stripe heads (md's stripe_cache_size)
 * @param journal raid4/5/6: a device for the write journal (mdadm's {@code --write-journal}), or null
 * @param writeMostly members or spares flagged write-mostly (mdadm's {@code --write-mostly}): raid1
 *                    reads avoid them, for a leg on another machine
 */
public record ArrayCreate(String name, String level, List<String> members, List<String> spares, Long chunkBytes,
                          String layout, String flushStrategy, String barrierStrategy, Long speedMinBytes,
                          Long speedMaxBytes, boolean assumeClean, String metadata, String bitmap, Long bitmapChunkBytes,
                          Integer bitmapDelaySeconds, Integer stripeCacheSize, String journal, List<String> writeMostly) {

    public ArrayCreate {
        members = members == null ? List.of() : List.copyOf(members);
        spares = spares == null ? List.of() : List.copyOf(spares);
        writeMostly = writeMostly == null ? List.of() : List.copyOf(writeMostly);
    }

    /**
     * How array {@code is} differs from this request (docs/api.md, scripting contract): the level
     * in any of mdadm's spellings, the members by slot (a failed or replaced one still counts as
     * its slot's), the spares in any order; settings left out (md picks them by level) and
     * speed limits and strategies (PATCHable at run time) are not compared.
     */
    public Differences differencesFrom(ArrayView is) {
        String askedLevel;
        try {
            askedLevel = MdLevel.fromLabel(level).label();
        } catch (RuntimeException e) {
            askedLevel = level;
        }
        List<String> slots = is.members().stream().filter(m -> m.slot() >= 0 && !m.replacement())
                .sorted(java.util.Comparator.comparingInt(ArrayView.MemberView::slot))
                .map(ArrayView.MemberView::device).toList();
        List<String> isSpares = is.members().stream().filter(m -> m.slot() < 0).map(ArrayView.MemberView::device)
                .sorted().toList();
        return Differences.of("array", name).field("level", askedLevel, is.level())
                .field("members", members, slots)
                .field("spares", spares.stream().sorted().toList(), isSpares)
                .field("chunk", chunkBytes, is.chunkBytes())
                .field("layout", layout, is.layout())
                .field("metadata", metadata, is.metadata())
                .field("stripeCacheSize", stripeCacheSize, is.stripeCacheSize())
                .field("journal", journal, is.journal());
    }

    /**
     * The metadata of a new array: {@code 1.2} unless asked for {@code none} or given a write
     * journal; an internal bitmap for redundant levels with metadata unless asked for none. A
     * journal goes with metadata none (md records the journal device in its superblocks, which
     * Blockwork does not write, and md refuses a bitmap beside a journal). Errors name the field.
     */
    MetadataSpec metadataSpec(MdLevel level) {
        MetadataSpec.Format format;
        try {
            format = metadata == null ? (journal == null ? MetadataSpec.Format.V1_2 : MetadataSpec.Format.NONE)
                    : MetadataSpec.Format.parse(metadata);
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalid("metadata", e.getMessage());
        }
        if (journal != null && format != MetadataSpec.Format.NONE) {
            throw ProblemException.invalid("journal", "a write journal goes with metadata none: md records the journal"
                    + " device in its superblocks, which Blockwork does not write yet (leave metadata out, or no journal)");
        }
        String kind = bitmap == null ? (format == MetadataSpec.Format.V1_2 && level.redundant() ? "internal" : "none")
                : bitmap.trim().toLowerCase(Locale.ROOT);
        if (!kind.equals("internal") && !kind.equals("none")) {
            throw ProblemException.invalid("bitmap", "unknown bitmap '" + bitmap + "' (internal, none)");
        }
        if (kind.equals("internal") && format == MetadataSpec.Format.NONE) {
            throw ProblemException.invalid("bitmap", "an internal bitmap lives beside md's superblock: it needs metadata 1.2");
        }
        if (bitmapChunkBytes != null && !kind.equals("internal")) {
            throw ProblemException.invalid("bitmapChunk", "a bitmap chunk needs bitmap internal");
        }
        if (bitmapDelaySeconds != null && !kind.equals("internal")) {
            throw ProblemException.invalid("bitmapDelay", "a bitmap delay needs bitmap internal");
        }
        if (bitmapDelaySeconds != null && (bitmapDelaySeconds < 1 || bitmapDelaySeconds > 3600)) {
            throw ProblemException.invalid("bitmapDelay", "the bitmap daemon sleeps 1 to 3600 seconds, got " + bitmapDelaySeconds);
        }
        if (format == MetadataSpec.Format.NONE) {
            return MetadataSpec.NONE;
        }
        MetadataSpec.Bitmap b = null;
        if (kind.equals("internal")) {
            try {
                b = new MetadataSpec.Bitmap(bitmapChunkBytes == null ? 0 : bitmapChunkBytes,
                        bitmapDelaySeconds == null ? MetadataSpec.Bitmap.DEFAULT_DAEMON_SLEEP : bitmapDelaySeconds);
            } catch (IllegalArgumentException e) {
                throw ProblemException.invalid("bitmapChunk", e.getMessage());
            }
        }
        return new MetadataSpec(format, MdUuid.random(), b);
    }
}
