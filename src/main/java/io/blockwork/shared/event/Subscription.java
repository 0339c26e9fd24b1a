package io.blockwork.shared.event;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One stream consumer's place at the hub: its filter and its own bounded queue. The hub offers
 * to the queue and never waits; a consumer that lets it fill up is cut off (the queue is emptied
 * and holds only a final {@link StreamItem.Dropped}), so it never holds more than its queue's
 * worth of events and never slows the publishers or the other consumers.
 */
public final class Subscription implements AutoCloseable {

    private final EventHub hub;
    private final EventFilter filter;
    private final ArrayBlockingQueue<StreamItem> queue;
    private final int capacity;
    /** Set once, under the hub's lock, when the last item is queued. */
    private volatile boolean ended;

    Subscription(EventHub hub, EventFilter filter, int capacity) {
        this.hub = hub;
        this.filter = filter;
        // one more slot than the events it may hold, so the final item always fits
        this.queue = new ArrayBlockingQueue<>(capacity + 1);
        this.capacity = capacity;
    }

    /**
     * The next item, waiting at most {@code wait}; null if nothing came (time for a heartbeat).
     * After an item for which {@link StreamItem#last()} is true, nothing more comes.
     */
    public StreamItem next(Duration wait) throws InterruptedException {
        return queue.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Items waiting for the consumer now. */
    public int queued() {
        return queue.size();
    }

    public boolean ended() {
        return ended;
    }

    /** Leaves the hub; the consumer went away. */
    @Override
    public void close() {
        hub.unsubscribe(this);
    }

    /* ---- the hub's side, under its lock ---- */

    /** Queues {@code e} if it matches; false if the consumer is too far behind and was cut off. */
    boolean offer(Event e) {
        if (ended || !filter.matches(e)) {
            return true;
        }
        if (queue.size() >= capacity) {
            end(new StreamItem.Dropped("the consumer fell " + capacity + " events behind and was cut off;"
                    + " reconnect with the Last-Event-ID it has to resume"));
            return false;
        }
        queue.offer(new StreamItem.Delivered(e));
        return true;
    }

    void put(StreamItem item) {
        if (!ended) {
            queue.offer(item);
        }
    }

    /** Empties the queue and leaves only {@code last} in it. */
    void end(StreamItem last) {
        if (!ended) {
            ended = true;
            queue.clear();
            queue.offer(last);
        }
    }
}
