package io.blockwork.engine.dm;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.Quoted;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * A constructed, validated table (the kernel's {@code struct dm_table}): targets in sector order,
 * the distinct devices they use, the limits they stack to, and the sector-to-target lookup.
 * Immutable once built; the targets inside it keep their own run-time state.
 *
 * <p>{@link #build} checks, line by line and in the kernel's order: zero length, target type,
 * that the target adjoins the previous one (so the first starts at sector 0 and there are no gaps
 * or overlaps), the target's own arguments, that every device area it uses lies inside its device,
 * and that no device leads back to the device the table is for; then, over the whole table, that
 * every target is aligned to the largest logical block size of its devices. The first failure is
 * reported with its line, and the targets built so far are closed again.
 */
public final class Table {

    /** One target of the table, with its place in the mapped device. */
    public static final class Entry {
        private final int line;
        private final long startSector;
        private final long lengthSectors;
        private final TargetType type;
        private final Target target;
        private final long startBytes;
        private final long endBytes;
        private final long chunkBytes;

        Entry(int line, long startSector, long lengthSectors, TargetType type, Target target) {
            this.line = line;
            this.startSector = startSector;
            this.lengthSectors = lengthSectors;
            this.type = type;
            this.target = target;
            this.startBytes = startSector << 9;
            this.endBytes = (startSector + lengthSectors) << 9;
            this.chunkBytes = target.maxIoSectors() << 9;
        }

        public int line() {
            return line;
        }

        public long startSector() {
            return startSector;
        }

        public long lengthSectors() {
            return lengthSectors;
        }

        public TargetType type() {
            return type;
        }

        public Target target() {
            return target;
        }

        long startBytes() {
            return startBytes;
        }

        long endBytes() {
            return endBytes;
        }

        /** Where a bio starting at device byte {@code offset} must end at the latest: the target's end or its next chunk boundary. */
        long pieceEnd(long offset) {
            if (chunkBytes == 0) {
                return endBytes;
            }
            long rel = offset - startBytes;
            return Math.min(endBytes, startBytes + (rel / chunkBytes + 1) * chunkBytes);
        }

        String statusText(StatusType t) {
            String s = target.status(t);
            return startSector + " " + lengthSectors + " " + type.name() + (s.isEmpty() ? "" : " " + s);
        }
    }

    private final Entry[] entries;
    private final long[] starts;
    private final long sizeBytes;
    private final List<BlockDevice> devices;
    private final boolean flushBypassesMap;
    private final DeviceLimits limits;

    private Table(Entry[] entries, List<BlockDevice> devices, DeviceLimits limits) {
        this.entries = entries;
        this.starts = new long[entries.length];
        boolean bypass = true;
        for (int i = 0; i < entries.length; i++) {
            starts[i] = entries[i].startBytes;
            bypass &= entries[i].target.flushBypassesMap();
        }
        this.sizeBytes = entries.length == 0 ? 0 : entries[entries.length - 1].endBytes;
        this.devices = devices;
        this.flushBypassesMap = bypass && entries.length > 0;
        this.limits = limits;
    }

    /**
     * Builds and validates a table for {@code owner} (null when checking a table on its own).
     *
     * @throws TableException naming the first offending line; nothing stays constructed
     */
    public static Table build(TableSpec spec, DeviceLookup lookup, DmConfig config, MappedDevice owner)
            throws TableException {
        return build(spec, lookup, config, owner, owner == null ? TableOwner.NONE : owner.tableOwner());
    }

    static Table build(TableSpec spec, DeviceLookup lookup, DmConfig config, BlockDevice self, TableOwner owner)
            throws TableException {
        if (spec.lines().isEmpty()) {
            throw new TableException(1, "the table has no targets");
        }
        List<Entry> built = new ArrayList<>();
        try {
            long expected = 0;
            for (TableSpec.Line line : spec.lines()) {
                built.add(buildLine(line, expected, lookup, config, self, owner));
                expected = line.start() + line.length();
            }
            Set<BlockDevice> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
            List<BlockDevice> devices = new ArrayList<>();
            DeviceLimits limits = DeviceLimits.of(DeviceLimits.SECTOR);
            for (Entry e : built) {
                for (DeviceRange r : e.target.devices()) {
                    if (distinct.add(r.device())) {
                        devices.add(r.device());
                        limits = limits.stack(r.device().limits());
                    }
                }
            }
            checkAlignment(built, limits.logicalBlockSize());
            Entry[] array = built.toArray(Entry[]::new);
            return new Table(array, List.copyOf(devices), limits.withBoundary(grid(array)));
        } catch (RuntimeException e) {
            built.forEach(b -> b.target.close());
            throw e;
        }
    }

    private static Entry buildLine(TableSpec.Line line, long expected, DeviceLookup lookup, DmConfig config,
                                   BlockDevice self, TableOwner owner) throws TableException {
        int n = line.line();
        if (line.length() == 0) {
            throw new TableException(n, "zero-length target");
        }
        TargetType type = config.registry().find(line.type());
        if (type == null) {
            throw new TableException(n, "unknown target type " + Quoted.of(line.type()) + " (known: "
                    + String.join(", ", config.registry().names()) + ")");
        }
        if (line.start() != expected) {
            throw new TableException(n, adjoinError(line.start(), expected));
        }
        if (line.start() + line.length() > TargetArgs.MAX_SECTOR) {
            throw new TableException(n, "the table ends past sector " + TargetArgs.MAX_SECTOR);
        }
        Target target;
        try {
            target = type.construct(new TargetContext(line.start(), line.length(), config, owner, self),
                    new TargetArgs(line.args(), lookup));
        } catch (TargetException e) {
            throw new TableException(n, type.name() + ": " + e.getMessage());
        }
        try {
            for (DeviceRange r : target.devices()) {
                checkRange(n, r);
                checkCycle(n, r.device(), self);
            }
        } catch (TableException e) {
            target.close();
            throw e;
        }
        return new Entry(n, line.start(), line.length(), type, target);
    }

    private static String adjoinError(long start, long expected) {
        if (expected == 0) {
            return "the first target must start at sector 0, not " + start;
        }
        if (start > expected) {
            return "gap in table: target starts at sector " + start + " but the previous one ends at sector " + expected;
        }
        return "overlap: target starts at sector " + start + ", before the previous one ends at sector " + expected;
    }

    private static void checkRange(int line, DeviceRange r) throws TableException {
        long devSectors = r.device().sizeBytes() >> 9;
        if (r.startSector() > devSectors || r.lengthSectors() > devSectors - r.startSector()) {
            throw new TableException(line, "device '" + r.device().name() + "' too small for target: start="
                    + r.startSector() + ", len=" + r.lengthSectors() + ", dev_size=" + devSectors);
        }
    }

    /** Refuses a device that is, or sits on, the device the table is for. */
    private static void checkCycle(int line, BlockDevice device, BlockDevice self) throws TableException {
        if (self == null) {
            return;
        }
        List<BlockDevice> path = new ArrayList<>();
        if (reaches(device, self, path, Collections.newSetFromMap(new IdentityHashMap<>()))) {
            StringBuilder s = new StringBuilder("'" + self.name() + "'");
            for (BlockDevice d : path) {
                s.append(" -> '").append(d.name()).append("'");
            }
            throw new TableException(line, "device cycle: " + s);
        }
    }

    private static boolean reaches(BlockDevice from, BlockDevice target, List<BlockDevice> path, Set<BlockDevice> seen) {
        path.add(from);
        if (from == target) {
            return true;
        }
        if (seen.add(from)) {
            Collection<BlockDevice> below = from instanceof MappedDevice m ? m.referencedDevices() : from.lowerDevices();
            for (BlockDevice d : below) {
                if (reaches(d, target, path, seen)) {
                    return true;
                }
            }
        }
        path.removeLast();
        return false;
    }

    private static void checkAlignment(List<Entry> entries, int lbs) throws TableException {
        long sectors = lbs >> 9;
        for (Entry e : entries) {
            if (e.startSector % sectors != 0 || e.lengthSectors % sectors != 0 || e.target.maxIoSectors() % sectors != 0) {
                throw new TableException(e.line, "target (start " + e.startSector + ", length " + e.lengthSectors
                        + (e.target.maxIoSectors() > 0 ? ", chunk " + e.target.maxIoSectors() : "")
                        + ") is not aligned to the logical block size " + lbs + " of its devices");
            }
        }
    }

    /**
     * The device-wide boundary, in bytes, when one value expresses every split the table needs:
     * every target either has a chunk of G sectors or is G sectors long (so target edges and chunk
     * boundaries are exactly the multiples of G). Otherwise 0, and the core's dispatch splits at
     * target edges and chunks itself, as dm's {@code max_io_len} does ("varied (per target) IO
     * splitting is a tenet of DM"). A lone target without a chunk needs no boundary at all.
     */
    private static long grid(Entry[] entries) {
        if (entries.length == 1 && entries[0].target.maxIoSectors() == 0) {
            return 0;
        }
        long g = 0;
        for (Entry e : entries) {
            long unit = e.target.maxIoSectors() > 0 ? e.target.maxIoSectors() : e.lengthSectors;
            if (g == 0) {
                g = unit;
            } else if (g != unit) {
                return 0;
            }
        }
        return g << 9;
    }

    /* ---- Lookup ---- */

    /** The target covering device byte {@code offset}, or null past the end. */
    Entry find(long offset) {
        if (offset < 0 || offset >= sizeBytes) {
            return null;
        }
        int i = Arrays.binarySearch(starts, offset);
        return entries[i >= 0 ? i : -i - 2];
    }

    /** The target covering {@code sector}, or null past the end. */
    public Entry targetAt(long sector) {
        return sector < 0 || sector > TargetArgs.MAX_SECTOR ? null : find(sector << 9);
    }

    public List<Entry> entries() {
        return List.of(entries);
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    public long sizeSectors() {
        return sizeBytes >> 9;
    }

    /** Distinct underlying devices, in the order the table first names them. */
    public List<BlockDevice> devices() {
        return devices;
    }

    /** True if every target lets empty flushes bypass its map. */
    public boolean flushBypassesMap() {
        return flushBypassesMap;
    }

    /** The limits stacked over the devices, with the device-wide boundary if one expresses the table. */
    public DeviceLimits limits() {
        return limits;
    }

    /* ---- Text ---- */

    /** The table in canonical form, as {@code dmsetup table} prints it (devices by name). */
    public String text() {
        return statusText(StatusType.TABLE);
    }

    /** One line per target, {@code <start> <length> <type> <status>}, each ending in a newline. */
    public String statusText(StatusType type) {
        StringBuilder s = new StringBuilder();
        for (Entry e : entries) {
            s.append(e.statusText(type)).append('\n');
        }
        return s.toString();
    }

    /** Per-target status lines, for the API's JSON. */
    public List<TargetStatus> status(StatusType type) {
        List<TargetStatus> out = new ArrayList<>(entries.length);
        for (Entry e : entries) {
            out.add(new TargetStatus(e.startSector, e.lengthSectors, e.type.name(), e.target.status(type)));
        }
        return out;
    }

    /** The canonical spec: what {@link #text()} parses back to. */
    public TableSpec spec() {
        List<TableSpec.Line> lines = new ArrayList<>(entries.length);
        for (int i = 0; i < entries.length; i++) {
            Entry e = entries[i];
            String args = e.target.status(StatusType.TABLE);
            lines.add(new TableSpec.Line(i + 1, e.startSector, e.lengthSectors, e.type.name(),
                    args.isEmpty() ? List.of() : List.of(args.split(" "))));
        }
        return new TableSpec(lines);
    }

    /* ---- Lifecycle fan-out ---- */

    void presuspend(boolean noflush) {
        for (Entry e : entries) {
            e.target.presuspend(noflush);
        }
    }

    void presuspendUndo() {
        for (Entry e : entries) {
            e.target.presuspendUndo();
        }
    }

    void postsuspend() {
        for (Entry e : entries) {
            e.target.postsuspend();
        }
    }

    void preresume() throws TableException {
        for (Entry e : entries) {
            try {
                e.target.preresume();
            } catch (TargetException ex) {
                throw new TableException(e.line, e.type.name() + ": " + ex.getMessage());
            }
        }
    }

    void resume() {
        for (Entry e : entries) {
            e.target.resume();
        }
    }

    /** Closes every target (the kernel's {@code dtr}); for a table built on its own and no longer needed. */
    public void close() {
        for (Entry e : entries) {
            e.target.close();
        }
    }
}
