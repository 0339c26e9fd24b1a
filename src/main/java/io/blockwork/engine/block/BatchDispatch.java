package io.blockwork.engine.block;

/**
 * How a worker thread that submits bios in batches (the dm mirror worker, the region copier)
 * gets them to the devices — the mechanism seed 003 fixed, kept in both forms.
 *
 * <pre>{@code
 * dispatch.beginBatch();
 * for (...) dispatch.submit(leg, bio);
 * dispatch.endBatch();
 * }</pre>
 *
 * {@code explicit} (the fix, default): a batch runs inside a per-thread {@link Plug} that is
 * closed at the end of the batch, so its bios reach the devices at once, merged where adjacent.
 * {@code timer} (2.6.2x behaviour): bios go into each device's {@link QueuePlug} and the worker
 * never unplugs, so they wait for the 3 ms unplug timer (or the 4-request threshold) while the
 * thread that submitted the original I/O sleeps in vain.
 *
 * <p>An instance belongs to one worker thread.
 */
public sealed interface BatchDispatch permits BatchDispatch.Explicit, BatchDispatch.Timer {

    void beginBatch();

    void submit(BlockDevice device, Bio bio);

    void endBatch();

    /** How many times a timer, rather than the worker, released held bios; 0 for {@code explicit}. */
    long timerUnplugs();

    static BatchDispatch create(Kind kind, DeadlineScheduler timer) {
        return switch (kind) {
            case EXPLICIT -> new Explicit();
            case TIMER -> new Timer(timer);
        };
    }

    /** The strategy names of the API: {@code explicit} and {@code timer}. */
    enum Kind implements Labelled {
        EXPLICIT,
        TIMER;

        public static Kind fromLabel(String label) {
            return Labelled.parse(Kind.class, label, "dispatch strategy");
        }
    }

    /** Unplug after each batch. */
    final class Explicit implements BatchDispatch {
        private Plug plug;

        @Override
        public void beginBatch() {
            plug = Plug.start();
        }

        @Override
        public void submit(BlockDevice device, Bio bio) {
            device.submit(bio);
        }

        @Override
        public void endBatch() {
            if (plug != null) {
                plug.close();
                plug = null;
            }
        }

        @Override
        public long timerUnplugs() {
            return 0;
        }
    }

    /** Leave each device's queue plugged; only its timer releases it. */
    final class Timer implements BatchDispatch {
        private final DeadlineScheduler timer;
        private final java.util.Map<BlockDevice, QueuePlug> queues = new java.util.concurrent.ConcurrentHashMap<>();

        Timer(DeadlineScheduler timer) {
            this.timer = timer;
        }

        @Override
        public void beginBatch() {
            // the old kmirrord plugged nothing itself
        }

        @Override
        public void submit(BlockDevice device, Bio bio) {
            queues.computeIfAbsent(device, d -> new QueuePlug(d, timer)).submit(bio);
        }

        @Override
        public void endBatch() {
            // ... and unplugged nothing: that was the bug
        }

        @Override
        public long timerUnplugs() {
            return queues.values().stream().mapToLong(QueuePlug::timerUnplugs).sum();
        }
    }
}
