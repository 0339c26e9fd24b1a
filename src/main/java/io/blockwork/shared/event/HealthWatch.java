package io.blockwork.shared.event;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.snapshot.SnapshotStatus;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.engine.event.EngineEvent;
import io.blockwork.engine.event.EngineListener;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.RegisteredDevice;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Turns what the engine does on its own into events: the md arrays' {@link EngineEvent}s (it is
 * the {@link EngineListener} the arrays are built with), and, once a second, every device's
 * {@link Health}, published as a {@code state} event whenever it changes; the event number of
 * every mapped device (dm's "something happened" counter: a table swap, a mirror leg or snapshot
 * that failed), published as {@code changed} when it moves; a snapshot's COW fill crossing 50,
 * 80, 95 or 100 % ({@code fill}). (A merge's progress and end come from the snapshot feature,
 * which starts and finishes it.)
 *
 * <p>Threading: the engine calls {@link #on} from I/O completions and md daemon threads, where
 * nothing may wait, so it only hands the event to this watcher's one thread; that thread
 * publishes it, looks at the array's health right away, and runs the once-a-second scan. All
 * state lives on that thread: no locks, and every event of one array goes out in order.
 */
@Component
public class HealthWatch implements EngineListener {

    private static final System.Logger LOG = System.getLogger(HealthWatch.class.getName());

    private final EventHub hub;
    private final DeviceRegistry registry;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("health-watch").factory());
    /** Watcher thread only: the last health told, by "kind/name". */
    private final Map<String, Health> told = new HashMap<>();
    /** Watcher thread only: the last event number seen, by mapped device name. */
    private final Map<String, Long> dmEvents = new HashMap<>();
    /** Watcher thread only: the highest fill threshold told, by snapshot name. */
    private final Map<String, Integer> fills = new HashMap<>();

    /** The fill levels a snapshot's {@code fill} events mark, as lvm's monitoring warns at them. */
    static final int[] FILL_THRESHOLDS = {50, 80, 95, 100};

    public HealthWatch(EventHub hub, DeviceRegistry registry) {
        this.hub = hub;
        this.registry = registry;
        thread.scheduleWithFixedDelay(this::scanLogged, 1, 1, TimeUnit.SECONDS);
    }

    /* ---- engine events: never wait ---- */

    @Override
    public void on(EngineEvent event) {
        try {
            thread.execute(() -> {
                publish(event);
                registry.find(event.device()).ifPresent(this::check);
            });
        } catch (RejectedExecutionException stopping) {
            // the service is stopping: nobody is left to tell
        }
    }

    private void publish(EngineEvent event) {
        switch (event) {
            case EngineEvent.MemberFailed f -> hub.publish(Event.Draft.of(EventType.FAILED, EventKind.MEMBER, f.member())
                    .parent(f.device()).state("faulty", f.reason())
                    .data(Map.of("byRequest", f.byRequest())));
            case EngineEvent.SyncStarted s -> hub.publish(sync(s.device(), EventType.PROGRESS, s.action(), s.target(),
                    s.doneBytes(), s.totalBytes(), Map.of("phase", "started")));
            case EngineEvent.SyncProgress p -> {
                Map<String, Object> more = new LinkedHashMap<>();
                more.put("phase", p.paused() ? "paused" : "running");
                more.put("speedBytesPerSecond", p.speedKiBps() * 1024);
                more.put("etaSeconds", p.etaSeconds());
                hub.publish(sync(p.device(), EventType.PROGRESS, p.action(), p.target(), p.doneBytes(), p.totalBytes(),
                        more));
            }
            case EngineEvent.SyncEnded e -> {
                Map<String, Object> more = new LinkedHashMap<>();
                more.put("completed", e.completed());
                if (!e.action().equals("recover")) {
                    more.put("mismatchSectors", e.mismatchSectors());
                }
                hub.publish(sync(e.device(), EventType.ENDED, e.action(), e.target(), e.doneBytes(), e.totalBytes(),
                        more));
            }
            case EngineEvent.MembersChanged c -> {
                // the member rows follow through the change recorder; the health check below tells the rest
            }
        }
    }

    private static Event.Draft sync(String array, EventType type, String action, String target, long done, long total,
                                    Map<String, Object> more) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("action", action);
        if (target != null) {
            data.put("target", target);
        }
        data.put("doneBytes", done);
        data.put("totalBytes", total);
        data.put("percent", total == 0 ? 0.0 : Math.round(done * 1000.0 / total) / 10.0);
        data.putAll(more);
        return Event.Draft.of(type, EventKind.ARRAY, array).data(data);
    }

    /* ---- the watcher thread ---- */

    private void scanLogged() {
        try {
            scan();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "health scan failed; trying again in a second", e);
        }
    }

    /** Every device's health and every mapped device's event number, compared with what was told. */
    private void scan() {
        Set<String> seen = new HashSet<>();
        Set<String> dmSeen = new HashSet<>();
        for (RegisteredDevice e : registry.list()) {
            if (e.kind() == DeviceKind.HIDDEN) {
                continue;
            }
            seen.add(key(e));
            check(e);
            if (e.device() instanceof MappedDevice m) {
                dmSeen.add(e.name());
                long n = m.info().eventNumber();
                Long before = dmEvents.put(e.name(), n);
                if (before != null && before != n) {
                    hub.publish(Event.Draft.of(EventType.CHANGED, kind(e), e.name())
                            .data(Map.of("eventNumber", n, "status", m.statusText().strip())));
                }
                SnapshotStatus status = Snapshots.status(m).orElse(null);
                if (status != null && e.kind() == DeviceKind.SNAPSHOT && (status.state() == SnapshotStatus.State.VALID
                        || status.state() == SnapshotStatus.State.OVERFLOW)) {
                    fill(e.name(), status);
                }
            }
        }
        told.keySet().retainAll(seen);
        dmEvents.keySet().retainAll(dmSeen);
        fills.keySet().retainAll(dmSeen);
    }

    /**
     * A {@code fill} event when the snapshot's COW space crossed one or more thresholds upwards
     * (the highest). A snapshot that overflowed is full: 100 %, even if the write that found no
     * room came when a few sectors were still free (too few for a chunk and its metadata).
     */
    private void fill(String snapshot, SnapshotStatus status) {
        boolean overflow = status.state() == SnapshotStatus.State.OVERFLOW;
        double percent = overflow ? 100 : status.fillPercent();
        int reached = 0;
        for (int t : FILL_THRESHOLDS) {
            if (percent >= t) {
                reached = t;
            }
        }
        Integer before = fills.put(snapshot, reached);
        if (reached > (before == null ? 0 : before)) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("threshold", reached);
            data.put("percent", Math.round(percent * 100) / 100.0);
            data.put("allocatedBytes", status.allocatedSectors() << 9);
            data.put("totalBytes", status.totalSectors() << 9);
            data.put("overflow", overflow);
            hub.publish(Event.Draft.of(EventType.FILL, EventKind.SNAPSHOT, snapshot)
                    .data(data));
        }
    }

    /** Publishes {@code e}'s health if it differs from what was told (a first look tells only trouble). */
    private void check(RegisteredDevice e) {
        if (e.kind() == DeviceKind.HIDDEN) {
            return;
        }
        Health now = Health.of(e);
        Health before = told.put(key(e), now);
        if (before == null ? !now.ok() : !before.equals(now)) {
            hub.publish(Event.Draft.of(EventType.STATE, kind(e), e.name()).state(now.state(), now.reason()));
        }
    }

    private static String key(RegisteredDevice e) {
        return e.kind().label() + "/" + e.name();
    }

    static EventKind kind(RegisteredDevice e) {
        return switch (e.kind()) {
            case DISK -> EventKind.DISK;
            case ARRAY -> EventKind.ARRAY;
            case DM, HIDDEN -> EventKind.DM;
            case VOLUME -> EventKind.VOLUME;
            case SNAPSHOT -> EventKind.SNAPSHOT;
        };
    }

    @EventListener(ContextClosedEvent.class)
    void stop() {
        thread.shutdownNow();
    }
}
