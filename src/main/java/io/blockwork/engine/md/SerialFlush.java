package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.SerialFlusher;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * md before 2018, kept for seed 000's benchmark: one array flush at a time. A flush waits until
 * no other is in flight (md slept on {@code mddev->flush_bio}), then runs a round of empty
 * flushes over every active member, and only then sends its data. Each waiter pays a full round
 * of its own; nothing is merged. The queueing is {@link SerialFlusher} with merging off, where a
 * "media flush" is one round over the members.
 */
final class SerialFlush implements ArrayFlush {

    private final MdArray array;
    private final SerialFlusher rounds = new SerialFlusher(this::round, FlushMerging.OFF);

    SerialFlush(MdArray array) {
        this.array = array;
    }

    @Override
    public void submit(Bio bio) {
        rounds.flush(bio::endio);
    }

    private void round(Consumer<IoStatus> done) {
        Round r = new Round(array, done);
        MemberSet.Table t = array.members().table();
        for (int i = 0; i < t.width(); i++) {
            r.send(t.slots()[i]);
            r.send(t.replacements()[i]);
        }
        r.release();
    }

    /** One round of member flushes. */
    private static final class Round implements BioCallback {
        private final MdArray array;
        private final Consumer<IoStatus> done;
        private final AtomicInteger remaining = new AtomicInteger(1);
        private volatile IoStatus status = IoStatus.OK;

        Round(MdArray array, Consumer<IoStatus> done) {
            this.array = array;
            this.done = done;
        }

        void send(Member m) {
            if (m == null || !m.writable()) {
                return;
            }
            remaining.incrementAndGet();
            Bio flush = Bio.flush(this);
            flush.context(m);
            m.device().submit(flush);
        }

        @Override
        public void done(Bio flush) {
            if (flush.status().ok()) {
                release();
                return;
            }
            array.memberFlushFailed((Member) flush.context(), s -> {
                if (!s.ok()) {
                    status = s;
                }
                release();
            });
        }

        void release() {
            if (remaining.decrementAndGet() == 0) {
                done.accept(status);
            }
        }
    }
}
