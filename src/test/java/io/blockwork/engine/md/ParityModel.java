package io.blockwork.engine.md;

/**
 * An independent model of md's raid4/5/6 layouts, to check {@link ParityGeometry} and the members'
 * contents against. Written from the md(4) manual and mdadm's layout names (parity "rotating" left
 * or right, data "restarting" after each parity or "continuing" from it), not from raid5.c:
 *
 * <ul>
 *   <li>P's member per row: "left" layouts start on the last member and move one left per row,
 *       "right" ones start on member 0 and move right; parity-first/-last stay put. raid6 puts Q
 *       on the member after P (the -6 variants: a raid5 layout on all but the last member, which
 *       holds Q).
 *   <li>Data: "asymmetric" (restart) fills the members left to right, skipping P and Q;
 *       "symmetric" (continue) starts on the member after the parity and wraps round.
 *   <li>The DDF rotations: zero-restart is right-asymmetric with Q's coefficients by member
 *       index; N-restart is left-asymmetric shifted so the first row is {@code D D D P Q};
 *       N-continue is left-symmetric with Q before P.
 *   <li>Q's coefficient of a data block is {@code g^s}: md numbers the data in member order
 *       starting after Q; DDF by member index.
 * </ul>
 *
 * GF(2^8) multiply is done here by shift-and-add, not with the production tables.
 */
record ParityModel(MdLevel level, int code, int disks) {

    static final int P = -1;
    static final int Q = -2;

    int dataDisks() {
        return disks - (level == MdLevel.RAID6 ? 2 : 1);
    }

    /** The role of each member in row {@code row}: {@link #P}, {@link #Q} or the data index. */
    int[] roles(long row) {
        int n = disks;
        int[] r = new int[n];
        java.util.Arrays.fill(r, Integer.MIN_VALUE);
        if (level == MdLevel.RAID4) {
            r[n - 1] = P;
            fillAsymmetric(r);
            return r;
        }
        boolean six = level == MdLevel.RAID6;
        int base = code >= 16 ? code - 16 : code;
        if (six && code >= 16) {
            // raid5 layout on members 0..n-2, Q on the last.
            int[] inner = new ParityModel(MdLevel.RAID5, base == 4 ? 4 : base, n - 1).roles(row);
            System.arraycopy(inner, 0, r, 0, n - 1);
            r[n - 1] = Q;
            return r;
        }
        int p;
        switch (code) {
            case 0, 2 -> p = n - 1 - (int) (row % n);
            case 1, 3, 8 -> p = (int) (row % n);
            case 9 -> p = Math.floorMod(n - 2 - (int) (row % n), n);
            case 10 -> p = n - 1 - (int) (row % n);
            case 4 -> p = 0;
            default -> p = six ? n - 2 : n - 1;
        }
        r[p] = P;
        if (six) {
            int q = code == 10 ? Math.floorMod(p - 1, n) : (p + 1) % n;
            r[q] = Q;
        }
        boolean symmetric = code == 2 || code == 3 || code == 10;
        if (symmetric) {
            int start = code == 10 ? (p + 1) % n : six ? (p + 2) % n : (p + 1) % n;
            int k = 0;
            for (int i = 0; i < n; i++) {
                int d = (start + i) % n;
                if (r[d] == Integer.MIN_VALUE) {
                    r[d] = k++;
                }
            }
        } else {
            fillAsymmetric(r);
        }
        return r;
    }

    private static void fillAsymmetric(int[] r) {
        int k = 0;
        for (int d = 0; d < r.length; d++) {
            if (r[d] == Integer.MIN_VALUE) {
                r[d] = k++;
            }
        }
    }

    /** Q's coefficient exponent of the data on {@code disk} in {@code row}. */
    int qExponent(long row, int disk) {
        int[] r = roles(row);
        if (code >= 8 && code <= 10) {
            return disk;
        }
        int q = -1;
        for (int d = 0; d < disks; d++) {
            if (r[d] == Q) {
                q = d;
            }
        }
        int start = q == disks - 1 ? 0 : q + 1;
        int s = 0;
        for (int i = 0; i < disks; i++) {
            int d = (start + i) % disks;
            if (d == disk) {
                return s;
            }
            if (r[d] >= 0) {
                s++;
            }
        }
        throw new IllegalArgumentException("disk " + disk + " holds no data in row " + row);
    }

    static int gfMul(int a, int b) {
        int out = 0;
        while (b != 0) {
            if ((b & 1) != 0) {
                out ^= a;
            }
            a <<= 1;
            if ((a & 0x100) != 0) {
                a ^= 0x11d;
            }
            b >>= 1;
        }
        return out;
    }

    static int gfPow2(int e) {
        int v = 1;
        for (int i = 0; i < e; i++) {
            v = gfMul(v, 2);
        }
        return v;
    }

    /**
     * What every member must hold, given the array's contents {@code data} and a chunk of
     * {@code chunk} bytes: data where the layout puts it, P and Q by their definitions.
     */
    byte[][] members(byte[] data, int chunk) {
        int dd = dataDisks();
        long rows = data.length / ((long) chunk * dd);
        byte[][] out = new byte[disks][(int) (rows * chunk)];
        for (long row = 0; row < rows; row++) {
            int[] r = roles(row);
            int pDisk = -1;
            int qDisk = -1;
            for (int d = 0; d < disks; d++) {
                if (r[d] >= 0) {
                    System.arraycopy(data, (int) ((row * dd + r[d]) * chunk), out[d], (int) (row * chunk), chunk);
                } else if (r[d] == P) {
                    pDisk = d;
                } else {
                    qDisk = d;
                }
            }
            for (int i = 0; i < chunk; i++) {
                int p = 0;
                int q = 0;
                for (int d = 0; d < disks; d++) {
                    if (r[d] >= 0) {
                        int v = out[d][(int) (row * chunk) + i] & 0xff;
                        p ^= v;
                        q ^= gfMul(gfPow2(qExponent(row, d)), v);
                    }
                }
                out[pDisk][(int) (row * chunk) + i] = (byte) p;
                if (qDisk >= 0) {
                    out[qDisk][(int) (row * chunk) + i] = (byte) q;
                }
            }
        }
        return out;
    }
}
