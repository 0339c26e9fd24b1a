package io.blockwork.engine.md;

/**
 * Where md puts data, P and Q of a raid4/5/6 array: a port of raid5.c's {@code raid5_compute_sector}
 * and of the syndrome order of {@code set_syndrome_sources}, so that a member holds exactly what md
 * would have written there (with a data offset of 0).
 *
 * <p>The array is cut into chunks; chunk {@code c} is data chunk {@code c mod D} of stripe
 * ("row") {@code c / D}, where {@code D} is the number of data disks ({@code disks - 1}, or
 * {@code disks - 2} for raid6). Row {@code r} occupies bytes {@code [r*chunk, (r+1)*chunk)} of
 * every member. Which member holds the parity of a row, and in which order the data chunks follow
 * it, is the layout:
 *
 * <pre>
 *   left-asymmetric  pd = D - r mod n          data k on k, or k+1 from pd on
 *   right-asymmetric pd = r mod n              same
 *   left-symmetric   pd = D - r mod n          data k on (pd + 1 + k) mod n
 *   right-symmetric  pd = r mod n              same
 *   parity-first     pd = 0                    data k on k + 1
 *   parity-last      pd = D (raid4 always)     data k on k
 * </pre>
 *
 * raid6 puts Q after P ({@code qd = pd + 1}, wrapping to disk 0 for the asymmetric layouts, with
 * the data skipping both); the {@code -6} layouts are the raid5 ones on {@code n-1} disks with Q on
 * the last; the DDF rotations are documented per case below. Q is {@code sum g^s * D_s} over the
 * data in syndrome slot order {@code s}: for md's own layouts the data disks in device order
 * starting after Q, for DDF the device index itself (P and Q leave zero holes).
 */
public final class ParityGeometry {

    private final MdLevel level;
    private final ParityLayout layout;
    private final int disks;
    private final int dataDisks;
    private final long chunk;
    private final long memberBytes;

    private ParityGeometry(MdLevel level, ParityLayout layout, int disks, long chunk, long memberBytes) {
        this.level = level;
        this.layout = layout;
        this.disks = disks;
        this.dataDisks = disks - (level == MdLevel.RAID6 ? 2 : 1);
        this.chunk = chunk;
        this.memberBytes = memberBytes;
    }

    /**
     * The geometry of {@code disks} members of which the smallest has {@code smallestMember} bytes;
     * each member contributes that rounded down to the chunk (mdadm's rule).
     */
    public static ParityGeometry of(MdLevel level, ParityLayout layout, int disks, long chunkBytes, long smallestMember) {
        if (level != MdLevel.RAID4 && level != MdLevel.RAID5 && level != MdLevel.RAID6) {
            throw new IllegalArgumentException(level + " has no parity");
        }
        layout.checkFor(level);
        if (disks < level.minMembers()) {
            throw new MdArgumentException("members", level.label() + " needs at least " + level.minMembers()
                    + " members, got " + disks);
        }
        long used = smallestMember / chunkBytes * chunkBytes;
        if (used == 0) {
            throw new MdArgumentException("members", "the smallest member (" + smallestMember + " bytes) is smaller than one chunk");
        }
        return new ParityGeometry(level, layout, disks, chunkBytes, used);
    }

    /* ---- Placement: raid5_compute_sector ---- */

    /** The member holding P of row {@code row}. */
    public int parityDisk(long row) {
        int n = disks;
        int d = dataDisks;
        return switch (level) {
            case RAID4 -> d;
            case RAID5 -> switch (layout) {
                case LEFT_ASYMMETRIC, LEFT_SYMMETRIC -> d - (int) (row % n);
                case RIGHT_ASYMMETRIC, RIGHT_SYMMETRIC -> (int) (row % n);
                case PARITY_0 -> 0;
                default -> d;
            };
            default -> switch (layout) {
                case LEFT_ASYMMETRIC, LEFT_SYMMETRIC, ROTATING_N_CONTINUE -> n - 1 - (int) (row % n);
                case RIGHT_ASYMMETRIC, RIGHT_SYMMETRIC, ROTATING_ZERO_RESTART -> (int) (row % n);
                // Left-asymmetric, but the first row is D D D P Q rather than Q D D D P.
                case ROTATING_N_RESTART -> n - 1 - (int) ((row + 1) % n);
                case PARITY_0 -> 0;
                case PARITY_N -> d;
                case LEFT_ASYMMETRIC_6, LEFT_SYMMETRIC_6 -> d - (int) (row % (n - 1));
                case RIGHT_ASYMMETRIC_6, RIGHT_SYMMETRIC_6 -> (int) (row % (n - 1));
                case PARITY_0_6 -> 0;
            };
        };
    }

    /** The member holding Q of row {@code row}; -1 for raid4/5. */
    public int qDisk(long row) {
        if (level != MdLevel.RAID6) {
            return -1;
        }
        int n = disks;
        int pd = parityDisk(row);
        return switch (layout) {
            case LEFT_ASYMMETRIC, RIGHT_ASYMMETRIC, ROTATING_ZERO_RESTART, ROTATING_N_RESTART -> pd == n - 1 ? 0 : pd + 1;
            case LEFT_SYMMETRIC, RIGHT_SYMMETRIC -> (pd + 1) % n;
            case ROTATING_N_CONTINUE -> (pd + n - 1) % n;
            case PARITY_0 -> 1;
            case PARITY_N -> dataDisks + 1;
            default -> n - 1;
        };
    }

    /** The member holding data chunk {@code k} (0-based, {@code < dataDisks}) of row {@code row}. */
    public int dataDisk(long row, int k) {
        int n = disks;
        int pd = parityDisk(row);
        return switch (level) {
            case RAID4 -> k;
            case RAID5 -> switch (layout) {
                case LEFT_ASYMMETRIC, RIGHT_ASYMMETRIC -> k >= pd ? k + 1 : k;
                case LEFT_SYMMETRIC, RIGHT_SYMMETRIC -> (pd + 1 + k) % n;
                case PARITY_0 -> k + 1;
                default -> k;
            };
            default -> switch (layout) {
                case LEFT_ASYMMETRIC, RIGHT_ASYMMETRIC, ROTATING_ZERO_RESTART, ROTATING_N_RESTART ->
                        pd == n - 1 ? k + 1 : k >= pd ? k + 2 : k;
                case LEFT_SYMMETRIC, RIGHT_SYMMETRIC -> (pd + 2 + k) % n;
                case ROTATING_N_CONTINUE -> (pd + 1 + k) % n;
                case PARITY_0 -> k + 2;
                case PARITY_N -> k;
                case LEFT_ASYMMETRIC_6, RIGHT_ASYMMETRIC_6 -> k >= pd ? k + 1 : k;
                case LEFT_SYMMETRIC_6, RIGHT_SYMMETRIC_6 -> (pd + 1 + k) % (n - 1);
                case PARITY_0_6 -> k + 1;
            };
        };
    }

    /**
     * The syndrome slot of each member of row {@code row} ({@code -1} for P and Q): Q is
     * {@code sum g^slot * data}. md's layouts number the data members in device order starting
     * after Q ({@code raid6_d0}); DDF numbers every member by its index. Also filled for raid5,
     * where only the P part matters.
     */
    public int[] syndromeSlots(long row) {
        int[] slots = new int[disks];
        int pd = parityDisk(row);
        int qd = qDisk(row);
        if (layout.ddf() && level == MdLevel.RAID6) {
            for (int i = 0; i < disks; i++) {
                slots[i] = i == pd || i == qd ? -1 : i;
            }
            return slots;
        }
        int d0 = qd < 0 || qd == disks - 1 ? 0 : qd + 1;
        int count = 0;
        for (int j = 0; j < disks; j++) {
            int i = (d0 + j) % disks;
            slots[i] = i == pd || i == qd ? -1 : count++;
        }
        return slots;
    }

    /** How many syndrome slots there are: the data disks, or every member for DDF. */
    public int syndromeWidth() {
        return layout.ddf() && level == MdLevel.RAID6 ? disks : dataDisks;
    }

    /* ---- Sizes ---- */

    public MdLevel level() {
        return level;
    }

    public ParityLayout layout() {
        return layout;
    }

    public int disks() {
        return disks;
    }

    public int dataDisks() {
        return dataDisks;
    }

    /** Members that may be missing before data is lost. */
    public int maxDegraded() {
        return disks - dataDisks;
    }

    public long chunkBytes() {
        return chunk;
    }

    /** Array bytes of one row: a chunk of each data disk. */
    public long rowBytes() {
        return chunk * dataDisks;
    }

    /** Bytes of each member in use. */
    public long memberBytes() {
        return memberBytes;
    }

    public long rows() {
        return memberBytes / chunk;
    }

    public long arrayBytes() {
        return memberBytes * dataDisks;
    }

    @Override
    public String toString() {
        return level.label() + " " + layout.label() + " on " + disks + " disks, chunk " + chunk / 1024 + "K";
    }
}
