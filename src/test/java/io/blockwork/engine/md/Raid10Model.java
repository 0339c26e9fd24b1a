package io.blockwork.engine.md;

import java.util.ArrayList;
import java.util.List;

/**
 * An independent model of md's raid10 layouts, written from the md(4) manual's description and
 * not from raid10.c, to check {@link Raid10Geometry} against:
 *
 * <ul>
 *   <li>near: the copies of chunk {@code c} fill positions {@code c*nc .. c*nc+nc-1} of a
 *       row-major walk over the disks (position p is on disk {@code p % disks}, row {@code p / disks});
 *   <li>far: each device is cut into {@code fc} sections of {@code memberChunks / fc} rows;
 *       section 0 holds the near picture, section j the same picture with every disk moved
 *       {@code j * nc} places on (mod disks);
 *   <li>offset: near row r becomes rows {@code r*fc .. r*fc+fc-1}, row {@code r*fc+j} moved
 *       {@code j * nc} disks on.
 * </ul>
 * The array holds {@code section * disks / nc} chunks. Places are listed near copy by near copy,
 * each followed by its far (or offset) copies.
 */
record Raid10Model(int disks, int nc, int fc, boolean offset, long memberChunks) {

    /** A copy's place: disk and device chunk (row). */
    record Place(int disk, long row) {}

    long section() {
        return memberChunks / fc;
    }

    long arrayChunks() {
        return section() * disks / nc;
    }

    List<Place> places(long chunk) {
        List<Place> out = new ArrayList<>();
        for (int i = 0; i < nc; i++) {
            long p = chunk * nc + i;
            int disk = (int) (p % disks);
            long row = p / disks;
            for (int j = 0; j < fc; j++) {
                int d = (disk + j * nc) % disks;
                out.add(new Place(d, offset ? row * fc + j : row + j * section()));
            }
        }
        return out;
    }
}
