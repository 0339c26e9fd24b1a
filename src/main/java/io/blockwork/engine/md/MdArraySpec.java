package io.blockwork.engine.md;

import io.blockwork.engine.md.metadata.MetadataSpec;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What an array is, apart from its members: the values {@code mdadm --create} takes. The
 * constructor checks every field and names the one at fault; {@link #of} fills mdadm's defaults.
 *
 * @param name the array's device name
 * @param level the personality
 * @param chunkBytes raid0/raid10/raid4/5/6 chunk (power of two, 4 KiB..1 GiB; mdadm's default 512 KiB);
 *        linear's rounding (0 for none, mdadm's default); always 0 for raid1
 * @param layout raid10's layout; null for the other levels
 * @param strategies the seeds' strategies
 * @param speed resync/recovery speed limits
 * @param assumeClean skip the initial resync ({@code --assume-clean}): the members are known to agree
 * @param parity raid4/5/6's layout and stripe cache; null for the other levels
 * @param metadata what the members carry: nothing, or md's v1.2 superblock (and a bitmap)
 */
public record MdArraySpec(String name, MdLevel level, long chunkBytes, Raid10Layout layout,
                          MdStrategies strategies, SpeedLimits speed, boolean assumeClean, ParitySpec parity,
                          MetadataSpec metadata) {

    public static final long DEFAULT_CHUNK = 512 * 1024;
    private static final long MAX_CHUNK = 1L << 30;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    public MdArraySpec {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new MdArgumentException("name", "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit; got '" + name + "'");
        }
        Objects.requireNonNull(level, "level");
        Objects.requireNonNull(strategies, "strategies");
        Objects.requireNonNull(speed, "speed");
        Objects.requireNonNull(metadata, "metadata");
        switch (level) {
            case RAID0, RAID10, RAID4, RAID5, RAID6 -> checkChunk(chunkBytes, level);
            case LINEAR -> {
                if (chunkBytes != 0) {
                    checkChunk(chunkBytes, level);
                }
            }
            case RAID1 -> {
                if (chunkBytes != 0) {
                    throw new MdArgumentException("chunk", "raid1 has no chunk size");
                }
            }
        }
        if (level == MdLevel.RAID10 && layout == null) {
            throw new MdArgumentException("layout", "raid10 needs a layout (n2, f2, o2, ...)");
        }
        if (level != MdLevel.RAID10 && layout != null) {
            throw new MdArgumentException("layout", "only raid10 has a raid10 layout, not " + level.label());
        }
        if (metadata.bitmap() != null && !level.redundant()) {
            throw new MdArgumentException("bitmap", level.label() + " has no redundancy, so nothing to resync: no bitmap");
        }
        if (metadata.present() && name.getBytes(StandardCharsets.UTF_8).length > 32) {
            throw new MdArgumentException("name", "md's v1.2 superblock keeps at most 32 bytes of the name; '" + name
                    + "' is longer (choose a shorter name, or metadata none)");
        }
        if (level.parity() != (parity != null)) {
            throw new MdArgumentException("layout", level.parity() ? level.label() + " needs a parity layout"
                    : level.label() + " has no parity layout");
        }
        if (parity != null) {
            parity.layout().checkFor(level);
        }
    }

    /** The array's layout as md numbers it (raid10's code or the parity algorithm); null for levels without one. */
    public Integer layoutCode() {
        return layout != null ? Integer.valueOf(layout.code()) : parity != null ? Integer.valueOf(parity.layout().code()) : null;
    }

    /** mdadm's name for the layout ({@code n2}, {@code left-symmetric}); null for levels without one. */
    public String layoutLabel() {
        return layout != null ? layout.label() : parity != null ? parity.layout().label() : null;
    }

    /** A layout code as stored by {@link #layoutCode()}, back to mdadm's name for {@code level}. */
    public static String layoutLabel(MdLevel level, Integer code) {
        if (code == null) {
            return null;
        }
        return level.parity() ? ParityLayout.fromCode(code).label() : Raid10Layout.fromCode(code).label();
    }

    private static void checkChunk(long chunk, MdLevel level) {
        if (chunk < 4096 || chunk > MAX_CHUNK || Long.bitCount(chunk) != 1) {
            throw new MdArgumentException("chunk", level.label() + " needs a power of two from 4 KiB to 1 GiB, got " + chunk + " bytes");
        }
    }

    /** An array with mdadm's defaults for the level. */
    public static MdArraySpec of(String name, MdLevel level) {
        long chunk = level == MdLevel.RAID0 || level == MdLevel.RAID10 || level.parity() ? DEFAULT_CHUNK : 0;
        return new MdArraySpec(name, level, chunk, level == MdLevel.RAID10 ? Raid10Layout.N2 : null,
                MdStrategies.DEFAULT, SpeedLimits.DEFAULT, false, level.parity() ? ParitySpec.defaults(level) : null,
                MetadataSpec.NONE);
    }

    /**
     * From the API's plain values; null means the default. Errors name the field:
     * {@code name}, {@code level}, {@code chunk}, {@code layout}, {@code strategies.flush}, ...
     */
    public static MdArraySpec parse(String name, String level, Long chunkBytes, String layout,
                                    String flushStrategy, String barrierStrategy) {
        MdLevel l = MdLevel.fromLabel(level);
        MdArraySpec spec = of(name, l);
        if (chunkBytes != null) {
            spec = spec.withChunk(chunkBytes);
        }
        if (layout != null) {
            if (l.parity()) {
                spec = spec.withParity(spec.parity().withLayout(ParityLayout.parse(layout, l)));
            } else if (l != MdLevel.RAID10) {
                throw new MdArgumentException("layout", l.label() + " has no layout");
            } else {
                spec = spec.withLayout(Raid10Layout.parse(layout));
            }
        }
        return spec.withStrategies(MdStrategies.of(flushStrategy, barrierStrategy));
    }

    public MdArraySpec withChunk(long bytes) {
        return new MdArraySpec(name, level, bytes, layout, strategies, speed, assumeClean, parity, metadata);
    }

    public MdArraySpec withLayout(Raid10Layout l) {
        return new MdArraySpec(name, level, chunkBytes, l, strategies, speed, assumeClean, parity, metadata);
    }

    public MdArraySpec withStrategies(MdStrategies s) {
        return new MdArraySpec(name, level, chunkBytes, layout, s, speed, assumeClean, parity, metadata);
    }

    public MdArraySpec withSpeed(SpeedLimits s) {
        return new MdArraySpec(name, level, chunkBytes, layout, strategies, s, assumeClean, parity, metadata);
    }

    public MdArraySpec withAssumeClean(boolean clean) {
        return new MdArraySpec(name, level, chunkBytes, layout, strategies, speed, clean, parity, metadata);
    }

    /** With md's v1.2 superblocks ({@code bitmap} null for none) or without metadata ({@link MetadataSpec#NONE}). */
    public MdArraySpec withMetadata(MetadataSpec m) {
        return new MdArraySpec(name, level, chunkBytes, layout, strategies, speed, assumeClean, parity, m);
    }

    public MdArraySpec withParity(ParitySpec p) {
        return new MdArraySpec(name, level, chunkBytes, layout, strategies, speed, assumeClean, p, metadata);
    }

    /** raid4/5/6's stripe cache size; refused for other levels. */
    public MdArraySpec withStripeCacheSize(int heads) {
        if (parity == null) {
            throw new MdArgumentException("stripeCacheSize", level.label() + " has no stripe cache");
        }
        return withParity(parity.withStripeCacheSize(heads));
    }
}
