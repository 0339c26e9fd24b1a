package io.blockwork.engine.md;

/**
 * Where md puts the copies of a raid10 block: a port of raid10.c's {@code setup_geo},
 * {@code calc_sectors}, {@code __raid10_find_phys} and {@code raid10_find_virt}, so that a member's
 * content is exactly what md would have written there (with a data offset of 0).
 *
 * <p>Addresses are in 512-byte sectors, as in the kernel. Copies are numbered in the kernel's slot
 * order: near copy {@code n}, far copy {@code f} is copy {@code n * far + f}.
 *
 * <p>How it lays data out (md(4)): virtual chunk {@code c} has its near copies at positions
 * {@code c*near .. c*near+near-1} of a row-major walk over the devices; far copies repeat that
 * whole picture {@code stride} sectors further down each device, rotated by {@code near} devices
 * per copy; offset copies repeat each row in the next chunk row, rotated the same way.
 */
public final class Raid10Geometry {

    /** {@link #locate} packs the device index above the sector; a sector never needs 56 bits. */
    private static final int DEV_SHIFT = 56;
    private static final long SECTOR_MASK = (1L << DEV_SHIFT) - 1;

    private final Raid10Layout layout;
    private final int disks;
    private final int near;
    private final int far;
    private final boolean offset;
    private final int chunkShift;
    private final long chunkMask;
    private final long stride;
    private final long devSectors;
    private final long arraySectors;

    private Raid10Geometry(Raid10Layout layout, int disks, int chunkShift, long devSectors, long stride, long arraySectors) {
        this.layout = layout;
        this.disks = disks;
        this.near = layout.near();
        this.far = layout.far();
        this.offset = layout.offset();
        this.chunkShift = chunkShift;
        this.chunkMask = (1L << chunkShift) - 1;
        this.devSectors = devSectors;
        this.stride = stride;
        this.arraySectors = arraySectors;
    }

    /**
     * The geometry md computes for {@code disks} members of which the smallest has
     * {@code memberSectors} usable sectors (mdadm has already rounded it down to the chunk).
     */
    public static Raid10Geometry of(Raid10Layout layout, int disks, long chunkSectors, long memberSectors) {
        if (chunkSectors < 8 || Long.bitCount(chunkSectors) != 1) {
            throw new MdArgumentException("chunk", "must be a power of two of at least 4 KiB, got " + chunkSectors * 512 + " bytes");
        }
        if (layout.copies() > disks) {
            throw new MdArgumentException("members", "raid10 " + layout.label() + " keeps " + layout.copies()
                    + " copies and needs at least that many members, got " + disks);
        }
        if (layout.offset() && layout.near() > 1 && disks % layout.near() != 0) {
            // md would wrap a near copy into the row its offset copies use: two blocks, one place.
            throw new MdArgumentException("layout", "offset copies with near=" + layout.near()
                    + " need a member count that is a multiple of " + layout.near() + ", got " + disks);
        }
        int shift = Long.numberOfTrailingZeros(chunkSectors);
        // calc_sectors: chunks in the array, then the chunks each device really uses (rounded up).
        long size = memberSectors >>> shift;
        size /= layout.far();
        size *= disks;
        size /= layout.near();
        long devChunks = ceilDiv(size * layout.copies(), disks);
        long stride = layout.offset() ? chunkSectors : (devChunks / layout.far()) << shift;
        // raid10_size over the device sectors just computed.
        long arrayChunks = (devChunks / layout.far()) * disks / layout.near();
        if (arrayChunks == 0) {
            throw new MdArgumentException("members", "the smallest member (" + memberSectors * 512
                    + " bytes) holds less than one chunk per far copy");
        }
        return new Raid10Geometry(layout, disks, shift, devChunks << shift, stride, arrayChunks << shift);
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /* ---- Placement ---- */

    /**
     * Copy {@code copy} of virtual sector {@code sector}: the device in the high byte, its sector
     * below (see {@link #dev}, {@link #sector}). Allocation-free, for the I/O path.
     */
    long locate(long sector, int copy) {
        int n = copy / far;
        int f = copy - n * far;
        long chunk = (sector >>> chunkShift) * near;
        long stripe = chunk / disks;
        int dev = (int) (chunk - stripe * disks);
        if (offset) {
            stripe *= far;
        }
        long s = (sector & chunkMask) + (stripe << chunkShift);
        // Near copies go on the following devices, wrapping to device 0 one chunk further down.
        dev += n;
        if (dev >= disks) {
            dev -= disks;
            s += chunkMask + 1;
        }
        // Each far copy moves near devices on and one stride down.
        for (int i = 0; i < f; i++) {
            dev += near;
            if (dev >= disks) {
                dev -= disks;
            }
            s += stride;
        }
        return (long) dev << DEV_SHIFT | s;
    }

    static int dev(long located) {
        return (int) (located >>> DEV_SHIFT);
    }

    static long sector(long located) {
        return located & SECTOR_MASK;
    }

    /** Every copy of {@code sector}, in slot order, as {@code __raid10_find_phys} lists them. */
    public void findPhys(long sector, int[] devs, long[] sectors) {
        for (int copy = 0; copy < copies(); copy++) {
            long at = locate(sector, copy);
            devs[copy] = dev(at);
            sectors[copy] = sector(at);
        }
    }

    /**
     * The virtual sector stored at {@code devSector} of device {@code dev} ({@code raid10_find_virt});
     * a result at or past {@link #arraySectors} means the place holds no data.
     */
    public long findVirt(long devSector, int dev) {
        long inChunk = devSector & chunkMask;
        long chunk;
        if (offset) {
            chunk = devSector >>> chunkShift;
            int fc = (int) (chunk % far);
            chunk /= far;
            dev -= fc * near;
            if (dev < 0) {
                dev += disks;
            }
        } else {
            long s = devSector;
            while (s >= stride) {
                s -= stride;
                if (dev < near) {
                    dev += disks - near;
                } else {
                    dev -= near;
                }
            }
            chunk = s >>> chunkShift;
        }
        long vchunk = (chunk * disks + dev) / near;
        return (vchunk << chunkShift) + inChunk;
    }

    /* ---- Sizes ---- */

    public Raid10Layout layout() {
        return layout;
    }

    public int disks() {
        return disks;
    }

    public int copies() {
        return near * far;
    }

    public long chunkSectors() {
        return chunkMask + 1;
    }

    /** Sectors between a block's far copies: one chunk for offset layouts. */
    public long stride() {
        return stride;
    }

    /** Sectors of each member the layout uses (md's {@code dev_sectors}). */
    public long devSectors() {
        return devSectors;
    }

    public long arraySectors() {
        return arraySectors;
    }

    @Override
    public String toString() {
        return "raid10 " + layout.label() + " on " + disks + " disks, chunk " + (chunkSectors() * 512 / 1024) + "K, stride "
                + stride + " sectors";
    }
}
