package io.blockwork.engine.dm.targets;

import static io.blockwork.engine.dm.TargetType.version;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.dm.ArgBound;
import io.blockwork.engine.dm.DeviceRange;
import io.blockwork.engine.dm.EndIo;
import io.blockwork.engine.dm.MapResult;
import io.blockwork.engine.dm.StatusType;
import io.blockwork.engine.dm.Target;
import io.blockwork.engine.dm.TargetArgs;
import io.blockwork.engine.dm.TargetContext;
import io.blockwork.engine.dm.TargetException;
import io.blockwork.engine.dm.TargetType;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * dm-flakey: a linear mapping that misbehaves on a schedule. From the moment the table is
 * loaded it is up for {@code <up interval>} seconds, then down for {@code <down interval>}
 * seconds, and so on; what "down" means is chosen by features (Linux 6.x semantics).
 *
 * <pre>
 * flakey &lt;dev&gt; &lt;offset&gt; &lt;up interval&gt; &lt;down interval&gt; [&lt;#feature args&gt; [&lt;arg&gt;]...]
 *   features, while down:
 *     error_reads          reads fail
 *     drop_writes          writes succeed without reaching the device
 *     error_writes         writes fail
 *     corrupt_bio_byte &lt;Nth byte&gt; &lt;r|w&gt; &lt;value&gt; &lt;flags&gt;
 *                          byte N (from 1) of each matching read (after it completes) or write
 *                          (in a copy; the caller's buffer is untouched) is set to value (0-255);
 *                          flags, if non-zero, must all be set in the bio's kernel-encoded
 *                          bi_opf: op in the low byte (READ 0, WRITE 1, FLUSH 2, DISCARD 3,
 *                          WRITE_ZEROES 9), REQ_SYNC 0x800, REQ_FUA 0x20000, REQ_PREFLUSH 0x40000
 *     random_read_corrupt &lt;p&gt; / random_write_corrupt &lt;p&gt;
 *                          corrupt one random byte with probability p / 1000000000
 *     random_read_error &lt;p&gt; / random_write_error &lt;p&gt;
 *                          Blockwork's, after SPDK's error injection: fail each read (write) with
 *                          probability p / 1000000000, without touching the device; with up 0 and
 *                          down 1 the device is always down, so {@code 10000000} fails 1 % of I/O
 *   no features: error_reads and error_writes, i.e. all I/O fails while down
 * </pre>
 *
 * "Writes" are everything that is not a read: writes, discards, write-zeroes and flushes.
 * Status: INFO is empty; TABLE {@code <dev> <offset> <up> <down> <#feature args> <features>},
 * canonical, so a table without features prints {@code 2 error_reads error_writes}.
 * Time comes from the injected clock, so tests step through up and down phases by hand.
 */
public final class FlakeyTarget implements Target {

    public static final TargetType TYPE = new TargetType("flakey", version(1, 5, 0),
            "<dev> <offset> <up interval> <down interval> [<#feature args> [<arg>]...]", 4, Integer.MAX_VALUE,
            FlakeyTarget::construct);

    static final long PROBABILITY_BASE = 1_000_000_000L;

    private static final ArgBound UP = new ArgBound(0, ArgBound.UINT_MAX, "Invalid up interval");
    private static final ArgBound DOWN = new ArgBound(0, ArgBound.UINT_MAX, "Invalid down interval");
    /** The kernel's 11, plus Blockwork's two random error features. */
    private static final ArgBound FEATURE_ARGS = new ArgBound(0, 15, "Invalid number of feature args");
    private static final ArgBound NTH_BYTE = new ArgBound(1, ArgBound.UINT_MAX, "Invalid corrupt bio byte");
    private static final ArgBound VALUE = new ArgBound(0, 255, "Invalid corrupt value to write into bio byte (0-255)");
    private static final ArgBound FLAGS = new ArgBound(0, ArgBound.UINT_MAX, "Invalid corrupt bio flags mask");
    private static final ArgBound PROBABILITY = new ArgBound(0, PROBABILITY_BASE, "Invalid random corrupt argument");
    private static final ArgBound ERROR_PROBABILITY = new ArgBound(0, PROBABILITY_BASE, "Invalid random error argument");
    /** The features that take one probability, in the order {@code parseFeatures} keeps them. */
    private static final List<String> RANDOM_FEATURES =
            List.of("random_read_corrupt", "random_write_corrupt", "random_read_error", "random_write_error");

    private static final long REQ_SYNC = 1L << 11;
    private static final long REQ_FUA = 1L << 17;
    private static final long REQ_PREFLUSH = 1L << 18;

    /** What the target does while down: the parsed features. */
    record Features(boolean errorReads, boolean dropWrites, boolean errorWrites,
                    long corruptByte, boolean corruptWrites, int corruptValue, long corruptFlags,
                    long randomReadCorrupt, long randomWriteCorrupt, long randomReadError, long randomWriteError) {

        static final Features ALL_IO_ERRORS = new Features(true, false, true, 0, false, 0, 0, 0, 0, 0, 0);

        int argCount() {
            return (errorReads ? 1 : 0) + (dropWrites ? 1 : 0) + (errorWrites ? 1 : 0) + (corruptByte > 0 ? 5 : 0)
                    + (randomReadCorrupt > 0 ? 2 : 0) + (randomWriteCorrupt > 0 ? 2 : 0)
                    + (randomReadError > 0 ? 2 : 0) + (randomWriteError > 0 ? 2 : 0);
        }

        String text() {
            StringBuilder s = new StringBuilder().append(argCount());
            if (errorReads) {
                s.append(" error_reads");
            }
            if (dropWrites) {
                s.append(" drop_writes");
            } else if (errorWrites) {
                s.append(" error_writes");
            }
            if (corruptByte > 0) {
                s.append(" corrupt_bio_byte ").append(corruptByte).append(corruptWrites ? " w " : " r ")
                        .append(corruptValue).append(' ').append(corruptFlags);
            }
            if (randomReadCorrupt > 0) {
                s.append(" random_read_corrupt ").append(randomReadCorrupt);
            }
            if (randomWriteCorrupt > 0) {
                s.append(" random_write_corrupt ").append(randomWriteCorrupt);
            }
            if (randomReadError > 0) {
                s.append(" random_read_error ").append(randomReadError);
            }
            if (randomWriteError > 0) {
                s.append(" random_write_error ").append(randomWriteError);
            }
            return s.toString();
        }
    }

    private final BlockDevice dev;
    private final long start;
    private final long length;
    private final long upSeconds;
    private final long downSeconds;
    private final Features f;
    private final LongSupplier clock;
    private final long startNanos;

    private FlakeyTarget(BlockDevice dev, long start, long length, long up, long down, Features f, LongSupplier clock) {
        this.dev = dev;
        this.start = start;
        this.length = length;
        this.upSeconds = up;
        this.downSeconds = down;
        this.f = f;
        this.clock = clock;
        this.startNanos = clock.getAsLong();
    }

    static Target construct(TargetContext ti, TargetArgs args) throws TargetException {
        BlockDevice dev = args.readDevice("Device lookup failed");
        long start = args.readSector("Invalid device sector");
        long up = args.readUnsigned(UP);
        long down = args.readUnsigned(DOWN);
        if (up + down == 0) {
            throw new TargetException("Total (up + down) interval is zero");
        }
        Features f = parseFeatures(args);
        if (args.remaining() > 0) {
            throw new TargetException("Unexpected arguments after the features: " + args.remaining() + " left over");
        }
        return new FlakeyTarget(dev, start, ti.lengthSectors(), up, down, f, ti.clock());
    }

    /** The kernel's {@code parse_features}, with its checks and messages. */
    private static Features parseFeatures(TargetArgs args) throws TargetException {
        int argc = args.remaining() == 0 ? 0 : args.readGroup(FEATURE_ARGS);
        if (argc == 0) {
            return Features.ALL_IO_ERRORS;
        }
        boolean errorReads = false, dropWrites = false, errorWrites = false, corruptWrites = false;
        long corruptByte = 0, corruptFlags = 0;
        long[] random = new long[RANDOM_FEATURES.size()];
        int corruptValue = 0;
        while (argc > 0) {
            String name = args.next("Insufficient feature arguments");
            argc--;
            switch (name.toLowerCase(java.util.Locale.ROOT)) {
                case "error_reads" -> {
                    if (errorReads) {
                        throw new TargetException("Feature error_reads duplicated");
                    }
                    errorReads = true;
                }
                case "drop_writes" -> {
                    if (dropWrites) {
                        throw new TargetException("Feature drop_writes duplicated");
                    } else if (errorWrites) {
                        throw new TargetException("Feature drop_writes conflicts with feature error_writes");
                    }
                    dropWrites = true;
                }
                case "error_writes" -> {
                    if (errorWrites) {
                        throw new TargetException("Feature error_writes duplicated");
                    } else if (dropWrites) {
                        throw new TargetException("Feature error_writes conflicts with feature drop_writes");
                    }
                    errorWrites = true;
                }
                case "corrupt_bio_byte" -> {
                    if (corruptByte > 0) {
                        throw new TargetException("Feature corrupt_bio_byte duplicated");
                    } else if (argc < 4) {
                        throw new TargetException("Feature corrupt_bio_byte requires 4 parameters");
                    }
                    corruptByte = args.readUnsigned(NTH_BYTE);
                    String dir = args.next("Invalid corrupt bio direction (r or w)");
                    if (dir.equalsIgnoreCase("w")) {
                        corruptWrites = true;
                    } else if (!dir.equalsIgnoreCase("r")) {
                        throw new TargetException("Invalid corrupt bio direction (r or w)");
                    }
                    corruptValue = (int) args.readUnsigned(VALUE);
                    corruptFlags = args.readUnsigned(FLAGS);
                    argc -= 4;
                }
                case "random_read_corrupt", "random_write_corrupt", "random_read_error", "random_write_error" -> {
                    int k = RANDOM_FEATURES.indexOf(name.toLowerCase(java.util.Locale.ROOT));
                    if (random[k] > 0) {
                        throw new TargetException("Feature " + name + " duplicated");
                    } else if (argc < 1) {
                        throw new TargetException("Feature " + name + " requires a parameter");
                    }
                    random[k] = args.readUnsigned(k < 2 ? PROBABILITY : ERROR_PROBABILITY);
                    argc--;
                }
                default -> throw new TargetException("Unrecognised flakey feature requested: '" + name + "'");
            }
        }
        long randomRead = random[0], randomWrite = random[1], readError = random[2], writeError = random[3];
        boolean corruptsWrites = (corruptByte > 0 && corruptWrites) || randomWrite > 0;
        boolean corruptsReads = (corruptByte > 0 && !corruptWrites) || randomRead > 0;
        if (dropWrites && corruptsWrites) {
            throw new TargetException("drop_writes is incompatible with random_write_corrupt or corrupt_bio_byte with the WRITE flag set");
        } else if (errorWrites && corruptsWrites) {
            throw new TargetException("error_writes is incompatible with random_write_corrupt or corrupt_bio_byte with the WRITE flag set");
        } else if (errorReads && corruptsReads) {
            throw new TargetException("error_reads is incompatible with random_read_corrupt or corrupt_bio_byte with the READ flag set");
        } else if (writeError > 0 && (dropWrites || errorWrites)) {
            throw new TargetException("random_write_error is incompatible with drop_writes and error_writes");
        } else if (readError > 0 && errorReads) {
            throw new TargetException("random_read_error is incompatible with error_reads");
        }
        return new Features(errorReads, dropWrites, errorWrites, corruptByte, corruptWrites, corruptValue,
                corruptFlags, randomRead, randomWrite, readError, writeError);
    }

    /** True during a down interval. */
    boolean down() {
        long elapsed = (clock.getAsLong() - startNanos) / 1_000_000_000L;
        return elapsed % (upSeconds + downSeconds) >= upSeconds;
    }

    @Override
    public MapResult map(Bio bio) {
        if (!down()) {
            return remap(bio);
        }
        boolean hasData = bio.op().hasData();
        // Per-bio data: reads that may be corrupted when they complete.
        bio.context(hasData ? Boolean.TRUE : null);
        if (bio.op() == BioOp.READ) {
            return f.errorReads || chance(f.randomReadError) ? MapResult.IO_ERROR : remap(bio);
        }
        if (f.dropWrites) {
            return MapResult.OK;
        } else if (f.errorWrites || chance(f.randomWriteError)) {
            return MapResult.IO_ERROR;
        }
        if (!hasData) {
            return remap(bio);
        }
        boolean fixed = f.corruptByte > 0 && f.corruptWrites && flagsMatch(bio);
        boolean random = chance(f.randomWriteCorrupt);
        if (!fixed && !random) {
            return remap(bio);
        }
        // Corrupt a copy, as the kernel's clone_bio does: the caller's buffer stays intact.
        MemorySegment copy = MemorySegment.ofArray(new byte[(int) bio.length()]);
        copy.copyFrom(bio.data());
        if (fixed) {
            corrupt(copy, f.corruptByte - 1, (byte) f.corruptValue);
        }
        if (random) {
            corruptRandomByte(copy);
        }
        dev.submit(Bio.write((start << 9) + bio.offset(), copy, bio.flags(), done -> bio.endio(done.status())));
        return MapResult.SUBMITTED;
    }

    /** True with probability {@code p} / 10^9. */
    private static boolean chance(long p) {
        return p > 0 && ThreadLocalRandom.current().nextLong(PROBABILITY_BASE) < p;
    }

    private MapResult remap(Bio bio) {
        return MapResult.remap(dev, bio.op() == BioOp.FLUSH ? 0 : (start << 9) + bio.offset());
    }

    /** Corrupts successful reads issued while down, as configured. */
    @Override
    public EndIo endIo(Bio bio, IoStatus status) {
        if (status.ok() && bio.op() == BioOp.READ && bio.context() == Boolean.TRUE) {
            if (f.corruptByte > 0 && !f.corruptWrites && flagsMatch(bio)) {
                corrupt(bio.data(), f.corruptByte - 1, (byte) f.corruptValue);
            }
            if (chance(f.randomReadCorrupt)) {
                corruptRandomByte(bio.data());
            }
        }
        return EndIo.done(status);
    }

    private boolean flagsMatch(Bio bio) {
        long opf = switch (bio.op()) {
            case READ -> 0;
            case WRITE -> 1;
            case FLUSH -> 2;
            case DISCARD -> 3;
            case WRITE_ZEROES -> 9;
        };
        opf |= (bio.flags().sync() ? REQ_SYNC : 0) | (bio.fua() ? REQ_FUA : 0) | (bio.preflush() ? REQ_PREFLUSH : 0);
        return (opf & f.corruptFlags) == f.corruptFlags;
    }

    private static void corrupt(MemorySegment data, long at, byte value) {
        if (at < data.byteSize()) {
            data.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at, value);
        }
    }

    private static void corruptRandomByte(MemorySegment data) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        corrupt(data, r.nextLong(data.byteSize()), (byte) r.nextInt(256));
    }

    @Override
    public String status(StatusType type) {
        return switch (type) {
            case INFO -> "";
            case TABLE -> dev.name() + " " + start + " " + upSeconds + " " + downSeconds + " " + f.text();
        };
    }

    @Override
    public List<DeviceRange> devices() {
        return List.of(new DeviceRange(dev, start, length));
    }
}
