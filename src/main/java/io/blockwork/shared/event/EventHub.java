package io.blockwork.shared.event;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The service's one source of events: numbers them, keeps the latest in a ring for
 * {@code Last-Event-ID} resume and the JSON list, and hands each to every stream consumer's own
 * bounded {@link Subscription} queue.
 *
 * <p>Publishers are management operations after their commit, the engine's listeners (I/O
 * completion and md daemon threads), the once-a-second watcher, NBD connection threads and
 * workload runners. None of them ever waits for a consumer: {@link #publish} takes one short
 * lock, appends to the ring and offers to each queue; a consumer whose queue is full is cut off
 * with a final {@link StreamItem.Dropped} instead.
 *
 * <p>Locking: {@link #lock} guards the ring, the id counter and the subscriber list. It is held
 * while offering to the queues, so every consumer sees events in id order, and a new consumer's
 * backlog and its first live event join without a gap or a repeat. Nothing under it blocks:
 * queue offers are non-blocking and consumers take from their queues without it.
 */
@Component
public class EventHub {

    private final ReentrantLock lock = new ReentrantLock();
    private final Clock clock;
    private final int queueSize;
    /** Guarded by {@link #lock}: the latest events, oldest at {@code (head - size) mod length}. */
    private final Event[] ring;
    /** Guarded by {@link #lock}. */
    private int head;
    /** Guarded by {@link #lock}. */
    private int size;
    /** Guarded by {@link #lock}: the id the next event gets. */
    private long nextId;
    /** Guarded by {@link #lock}. */
    private final List<Subscription> subscribers = new ArrayList<>();
    /** Guarded by {@link #lock}. */
    private boolean closed;
    private final LongAdder published = new LongAdder();
    private final LongAdder droppedConsumers = new LongAdder();

    public EventHub(EventProperties properties) {
        this.clock = Clock.systemUTC();
        this.queueSize = properties.queueSize();
        this.ring = new Event[properties.ringSize()];
        // Ids start from the boot time in microseconds: a later run starts above every id of an
        // earlier one (unless that one averaged a million events a second), so an old
        // Last-Event-ID is recognised as too old instead of being taken for a recent one.
        this.nextId = clock.millis() * 1000;
    }

    /** Numbers {@code draft}, keeps it and hands it to every consumer it matches. Never blocks on consumers. */
    public Event publish(Event.Draft draft) {
        lock.lock();
        try {
            Event e = new Event(nextId++, Instant.now(clock), draft.type().label(), draft.kind().label(), draft.object(),
                    draft.parent(), draft.state(), draft.reason(), draft.data());
            ring[head] = e;
            head = (head + 1) % ring.length;
            size = Math.min(size + 1, ring.length);
            published.increment();
            subscribers.removeIf(s -> {
                boolean cutOff = !s.offer(e);
                if (cutOff) {
                    droppedConsumers.increment();
                }
                return cutOff;
            });
            return e;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A new consumer. With {@code lastEventId} null it starts with the next event; otherwise with
     * the kept events after that id, or, if some of those are no longer kept or the id is not
     * one of this run's, with a {@link StreamItem.Reset} and then the next event.
     */
    public Subscription subscribe(EventFilter filter, Long lastEventId) {
        Subscription s = new Subscription(this, filter, queueSize);
        lock.lock();
        try {
            if (closed) {
                s.end(new StreamItem.Ended("the service is stopping"));
                return s;
            }
            if (lastEventId != null) {
                long newest = nextId - 1;
                long oldest = size == 0 ? nextId : oldest().id();
                if (lastEventId < oldest - 1 || lastEventId > newest) {
                    String why = lastEventId > newest
                            ? "event " + lastEventId + " is not from this run of the service"
                            : "events after " + lastEventId + " are no longer kept (the oldest kept is " + oldest + ")";
                    s.put(new StreamItem.Reset(newest, why + "; reload the state, then follow from " + newest));
                } else {
                    List<Event> missed = since(lastEventId, filter);
                    if (missed.size() > queueSize) {
                        s.put(new StreamItem.Reset(newest, missed.size() + " events were missed, more than a stream"
                                + " holds (" + queueSize + "); reload the state, then follow from " + newest));
                    } else {
                        missed.forEach(s::offer);
                    }
                }
            }
            subscribers.add(s);
            return s;
        } finally {
            lock.unlock();
        }
    }

    void unsubscribe(Subscription s) {
        lock.lock();
        try {
            subscribers.remove(s);
        } finally {
            lock.unlock();
        }
    }

    /** The kept events after {@code afterId} that {@code filter} matches, oldest first. */
    public List<Event> since(long afterId, EventFilter filter) {
        lock.lock();
        try {
            List<Event> out = new ArrayList<>();
            for (int i = size; i > 0; i--) {
                Event e = ring[Math.floorMod(head - i, ring.length)];
                if (e.id() > afterId && filter.matches(e)) {
                    out.add(e);
                }
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** The newest {@code limit} kept events that {@code filter} matches, oldest first. */
    public List<Event> latest(EventFilter filter, int limit) {
        lock.lock();
        try {
            List<Event> newestFirst = new ArrayList<>();
            for (int i = 1; i <= size && newestFirst.size() < limit; i++) {
                Event e = ring[Math.floorMod(head - i, ring.length)];
                if (filter.matches(e)) {
                    newestFirst.add(e);
                }
            }
            return newestFirst.reversed();
        } finally {
            lock.unlock();
        }
    }

    /** Guarded by {@link #lock}. */
    private Event oldest() {
        return ring[Math.floorMod(head - size, ring.length)];
    }

    /** The id of the newest event, or one below the first id if none was published yet. */
    public long lastId() {
        lock.lock();
        try {
            return nextId - 1;
        } finally {
            lock.unlock();
        }
    }

    /** Consumers connected now. */
    public int consumers() {
        lock.lock();
        try {
            return subscribers.size();
        } finally {
            lock.unlock();
        }
    }

    public long published() {
        return published.sum();
    }

    /** Consumers cut off for falling behind, since the start. */
    public long droppedConsumers() {
        return droppedConsumers.sum();
    }

    /** Ends every stream when the service stops, so their request threads finish and the server can stop. */
    @EventListener(ContextClosedEvent.class)
    public void close() {
        lock.lock();
        try {
            closed = true;
            for (Subscription s : subscribers) {
                s.end(new StreamItem.Ended("the service is stopping"));
            }
            subscribers.clear();
        } finally {
            lock.unlock();
        }
    }
}
