package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.IoStatus;

/**
 * The 6.12 design (Yu Kuai, "md: Remove flush handling"): a flush becomes one empty flush per
 * active member, all in flight at once; the parent completes after every one of them. Concurrent flushes are merged by each member's own flush machinery, never serialised
 * behind an array-wide one. Costs one small object per flush and one child bio per member.
 */
final class FanoutFlush implements ArrayFlush {

    private final MdArray array;

    FanoutFlush(MdArray array) {
        this.array = array;
    }

    @Override
    public void submit(Bio bio) {
        MemberSet.Table t = array.members().table();
        Fan fan = new Fan(array, bio);
        for (int i = 0; i < t.width(); i++) {
            fan.send(t.slots()[i]);
            fan.send(t.replacements()[i]);
        }
        bio.endio();
    }

    /** The member flushes of one parent; each holds a reference on it (bio_inc_remaining). */
    private record Fan(MdArray array, Bio parent) implements BioCallback {
        void send(Member m) {
            if (m == null || !m.writable()) {
                return;
            }
            parent.retain();
            Bio flush = parent.derive(BioOp.FLUSH, 0, 0, 0, BioFlags.NONE, this);
            flush.context(m);
            m.device().submit(flush);
        }

        @Override
        public void done(Bio flush) {
            if (flush.status().ok()) {
                parent.endio(IoStatus.OK);
            } else {
                array.memberFlushFailed((Member) flush.context(), parent::endio);
            }
        }
    }
}
