package io.blockwork.engine.md;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.IoStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * raid4/5/6 reads (md's {@code raid5_read_one_chunk} and its fallback): a piece of a read per data
 * chunk, asked of the member holding it when that member can read it; on an error or with the
 * member missing the piece goes to its stripe heads, which rebuild it from the others. Block
 * status ({@link #allocation}) follows the same choice. Healthy reads take no stripe head and no
 * lock here.
 */
final class ParityReads {

    private final Raid5 level;

    ParityReads(Raid5 level) {
        this.level = level;
    }

    /** A read bio (within one row): each chunk piece straight from its data member, else through the heads. */
    void read(Bio bio) {
        long row = bio.offset() / level.rowBytes;
        long inRow = bio.offset() - row * level.rowBytes;
        long chunk = level.geo.chunkBytes();
        MemberSet.Table t = level.members.table();
        long done = 0;
        while (done < bio.length()) {
            long at = inRow + done;
            int k = (int) (at / chunk);
            long inChunk = at - k * chunk;
            long len = Math.min(bio.length() - done, chunk - inChunk);
            int disk = level.geo.dataDisk(row, k);
            long addr = row * chunk + inChunk;
            Member m = Raid5.reader(t, disk, addr, len);
            bio.retain();
            if (m != null) {
                m.device().submit(bio.derive(BioOp.READ, m.dataOffset() + addr, len, done, bio.flags(),
                        new DirectRead(this, bio, m, disk, addr, done)));
            } else {
                viaHeads(bio, disk, addr, len, done);
            }
            done += len;
        }
        bio.endio();
    }

    /**
     * Follows {@link #read}: a chunk piece a healthy read takes straight from its data member is
     * asked of that member (exactly what such a read returns); a piece that would be rebuilt from
     * the others is data.
     */
    void allocation(long offset, long length, Extents out) {
        long chunk = level.geo.chunkBytes();
        MemberSet.Table t = level.members.table();
        long end = offset + length;
        for (long pos = offset; pos < end && !out.stopped(); ) {
            long row = pos / level.rowBytes;
            long inRow = pos - row * level.rowBytes;
            int k = (int) (inRow / chunk);
            long inChunk = inRow - k * chunk;
            long len = Math.min(end - pos, chunk - inChunk);
            long addr = row * chunk + inChunk;
            Member m = Raid5.reader(t, level.geo.dataDisk(row, k), addr, len);
            if (m != null) {
                m.device().allocation(m.dataOffset() + addr, len, out);
            } else {
                out.add(len, Allocation.DATA);
            }
            pos += len;
        }
    }

    /** A healthy read of one chunk piece; on error the member fails and the piece is rebuilt from the others. */
    private record DirectRead(ParityReads reads, Bio parent, Member member, int disk, long addr, long dataOff) implements BioCallback {
        @Override
        public void done(Bio child) {
            if (child.status().ok()) {
                parent.endio();
                return;
            }
            reads.level.members.failed(member, "read error");
            if (reads.level.members.lostReason() != null) {
                parent.endio(IoStatus.IO_ERROR);
                return;
            }
            reads.viaHeads(parent, disk, addr, child.length(), dataOff);
        }
    }

    /** Sends a read piece (holding one reference on {@code bio}) through the stripe heads it covers. */
    private void viaHeads(Bio bio, int disk, long addr, long len, long dataOff) {
        List<StripeHead> touched = new ArrayList<>(2);
        long done = 0;
        while (done < len) {
            long a = addr + done;
            long key = a / level.stripeBytes;
            int off = (int) (a - key * level.stripeBytes);
            int n = (int) Math.min(len - done, level.stripeBytes - off);
            bio.retain();
            StripeHead h = level.cache.attach(key, new StripeHead.Req(bio, BioOp.READ, disk, off, n, dataOff + done));
            if (h != null && !touched.contains(h)) {
                touched.add(h);
            }
            done += n;
        }
        bio.endio();
        touched.forEach(StripeHead::schedule);
    }
}
