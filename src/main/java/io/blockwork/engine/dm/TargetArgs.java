package io.blockwork.engine.dm;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Quoted;
import java.util.List;

/**
 * A target's arguments, read in order with typed readers: the kernel's {@code dm_arg_set} with
 * {@code dm_shift_arg}, {@code dm_read_arg} and {@code dm_read_arg_group}, plus device lookup
 * ({@code dm_get_device}). Every reader throws a {@link TargetException} with the caller's error
 * text, which the table builder prefixes with the line number.
 */
public final class TargetArgs {

    /** Sectors beyond this would overflow a byte offset. */
    public static final long MAX_SECTOR = Long.MAX_VALUE >> 9;

    private final List<String> argv;
    private final DeviceLookup lookup;
    private int next;

    TargetArgs(List<String> argv, DeviceLookup lookup) {
        this.argv = List.copyOf(argv);
        this.lookup = lookup;
    }

    /** All arguments given. */
    public int count() {
        return argv.size();
    }

    /** Arguments not yet read. */
    public int remaining() {
        return argv.size() - next;
    }

    /** The next argument, or null if there are none left ({@code dm_shift_arg}). */
    public String shift() {
        return next < argv.size() ? argv.get(next++) : null;
    }

    /** The next argument; {@code error} if there are none left. */
    public String next(String error) throws TargetException {
        String s = shift();
        if (s == null) {
            throw new TargetException(error);
        }
        return s;
    }

    /** An unsigned decimal within {@code bound}, else {@code bound.error()} ({@code dm_read_arg}). */
    public long readUnsigned(ArgBound bound) throws TargetException {
        String s = next(bound.error());
        long v = parseUnsigned(s);
        if (v < 0 || !bound.contains(v)) {
            throw new TargetException(bound.error() + ": " + Quoted.of(s));
        }
        return v;
    }

    /**
     * A count of the arguments that follow (a feature group), within {@code bound} and no more
     * than remain ({@code dm_read_arg_group}).
     */
    public int readGroup(ArgBound bound) throws TargetException {
        long n = readUnsigned(bound);
        if (n > remaining()) {
            throw new TargetException(bound.error() + ": " + n + " announced, " + remaining() + " given");
        }
        return (int) n;
    }

    /** A sector number ({@code %llu} into a {@code sector_t}), else {@code error}. */
    public long readSector(String error) throws TargetException {
        String s = next(error);
        long v = parseUnsigned(s);
        if (v < 0 || v > MAX_SECTOR) {
            throw new TargetException(error + ": " + Quoted.of(s));
        }
        return v;
    }

    /** A device by name, else {@code error} ("Device lookup failed"). */
    public BlockDevice readDevice(String error) throws TargetException {
        String name = next(error);
        BlockDevice d = lookup.find(name);
        if (d == null) {
            throw new TargetException(error + ": no device named " + Quoted.of(name));
        }
        return d;
    }

    /** A decimal of digits only, or -1 if it is not one or does not fit a long. */
    static long parseUnsigned(String s) {
        if (s.isEmpty() || s.length() > 19) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
            if (v < 0) {
                return -1;
            }
        }
        return v;
    }
}
