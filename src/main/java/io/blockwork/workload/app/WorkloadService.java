package io.blockwork.workload.app;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.FileMedium;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadResult.WorkloadSample;
import io.blockwork.shared.node.store.LocalNode;
import io.blockwork.workload.store.RunState;
import io.blockwork.workload.store.WorkloadEntity;
import io.blockwork.workload.store.WorkloadRepository;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.event.Event;
import io.blockwork.shared.event.EventHub;
import io.blockwork.shared.event.EventKind;
import io.blockwork.shared.event.EventType;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.data.domain.Limit;
import org.springframework.stereotype.Service;
import tools.jackson.databind.json.JsonMapper;

/**
 * Workloads over REST: the engine's fio-like load generator on any block device. Each runs on a
 * virtual thread of its own (its jobs on platform threads), any number at once up to
 * {@value #MAX_RUNNING}, on the same device or others. A row is written when it starts and again
 * when it ends, so finished ones stay as history; progress goes out as events once a second.
 *
 * <p>Writing to a device that holds data (a volume or snapshot, a device something uses, a file
 * disk) is refused unless the request says {@code "destructive": true}; reading never is.
 *
 * <p>When the service stops, running workloads are cancelled (their I/Os in flight complete) and
 * recorded as cancelled before the arrays and disks beneath them go; rows a crash left running
 * are marked interrupted at the next start.
 */
@Service
public class WorkloadService {

    private static final System.Logger LOG = System.getLogger(WorkloadService.class.getName());
    static final int MAX_RUNNING = 16;
    /** How long a cancel waits for the workload to end before answering anyway. */
    private static final Duration CANCEL_WAIT = Duration.ofSeconds(5);

    private final WorkloadRepository repository;
    /** Whose rows a crash left running this instance marks interrupted: its own node's only. */
    private final LocalNode local;
    private final DeviceRegistry registry;
    private final EventHub hub;
    private final JsonMapper json;
    private final Map<Long, Running> running = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    public WorkloadService(WorkloadRepository repository, DeviceRegistry registry, EventHub hub, JsonMapper json,
                           LocalNode local) {
        this.repository = repository;
        this.local = local;
        this.registry = registry;
        this.hub = hub;
        this.json = json;
    }

    /** A workload running now. */
    private static final class Running {
        final long id;
        final String device;
        final Workload workload;
        final WorkloadSettings settings;
        final long startNanos = System.nanoTime();
        final CompletableFuture<Void> ended = new CompletableFuture<>();
        volatile WorkloadSample last;

        Running(long id, String device, Workload workload, WorkloadSettings settings) {
            this.id = id;
            this.device = device;
            this.workload = workload;
            this.settings = settings;
        }
    }

    /* ---- start, read, cancel ---- */

    public WorkloadView start(WorkloadRequest request) {
        if (stopping) {
            throw new ProblemException(Problem.CONFLICT, "the service is stopping");
        }
        if (request.device() == null || request.device().isBlank()) {
            throw ProblemException.invalid("device", "device is required: the block device to run on");
        }
        WorkloadSettings settings = WorkloadSettings.of(request);
        RegisteredDevice entry = registry.find(request.device())
                .orElseThrow(() -> ProblemException.notFound("block device", request.device()).atField("device"));
        if (entry.kind() == DeviceKind.HIDDEN) {
            throw new ProblemException(Problem.CONFLICT, entry.name() + " is internal to a volume or snapshot;"
                    + " run the workload on the volume or snapshot itself").atField("device");
        }
        if (settings.writes() && !settings.destructive()) {
            String why = holdsData(entry);
            if (why != null) {
                throw new ProblemException(Problem.DESTRUCTIVE_NOT_CONFIRMED, "a " + settings.rw() + " workload would"
                        + " overwrite " + entry.kind().label() + " " + entry.name() + ": " + why
                        + "; send \"destructive\": true to confirm").atField("destructive").with("reason", why);
            }
        }
        // a writer from outside, as the REST data endpoints are: what an array, pool, snapshot or table
        // holds is refused (device-busy); confirming a destructive run is asking for raw access, which
        // an array or a table allows and a pool or snapshot does not
        BlockDevice device = settings.writes() ? registry.writable(entry.name(), settings.destructive())
                : registry.device(entry.name());
        if (running.size() >= MAX_RUNNING) {
            throw new ProblemException(Problem.CONFLICT, "at most " + MAX_RUNNING + " workloads run at once;"
                    + " wait for one to end or cancel one");
        }
        WorkloadEntity record = new WorkloadEntity(entry.name(), settings.rw(), json.writeValueAsString(settings),
                Instant.now().truncatedTo(ChronoUnit.MICROS));
        Workload workload = build(device, settings);
        record = repository.save(record);
        Running r = new Running(record.getId(), entry.name(), workload, settings);
        running.put(r.id, r);
        Thread.ofVirtual().name("workload-" + r.id).start(() -> run(r));
        return view(record);
    }

    /** The engine's workload; its own checks (alignment, regions inside the device) become 400s. */
    private static Workload build(BlockDevice device, WorkloadSettings settings) {
        try {
            return new Workload(device, settings.spec(),
                    Thread.ofPlatform().daemon().name("workload-" + device.name() + "-job-", 0).factory());
        } catch (IllegalArgumentException e) {
            String m = e.getMessage();
            String field = m.startsWith("bs") ? "bs" : m.startsWith("offset") ? "offset"
                    : m.contains("verify") ? "verify" : "size";
            throw ProblemException.invalid(field, m);
        }
    }

    /** Why a write workload on {@code e} would destroy data, or null if it would not. */
    static String holdsData(RegisteredDevice e) {
        if (e.kind() == DeviceKind.VOLUME || e.kind() == DeviceKind.SNAPSHOT) {
            return "a " + e.kind().label() + " holds its user's data";
        }
        if (!e.holders().isEmpty()) {
            return "it is in use by " + String.join(", ", e.holders().stream().map(Holder::toString).sorted().toList());
        }
        if (e.device() instanceof Disk d && d.medium() instanceof FileMedium) {
            return "it is a file disk, whose image file holds data";
        }
        return null;
    }

    public WorkloadView get(long id) {
        return view(record(id));
    }

    /** The newest {@code limit} workloads, running and ended, newest first. */
    public List<WorkloadView> list(int limit) {
        return repository.findAllByOrderByIdDesc(Limit.of(limit)).stream().map(this::view).toList();
    }

    /**
     * Ends a running workload (its I/Os in flight complete, the verify pass is skipped) and returns
     * it as recorded; a workload that has already ended is removed from the history instead
     * (then null is returned).
     */
    public WorkloadView cancel(long id) {
        // the running entry first: the run saves its end before it leaves the map, so a record read
        // after the entry is gone shows the end; read the other way round, a run ending in between
        // looked "running" and absent at once
        Running r = running.get(id);
        WorkloadEntity record = record(id);
        if (r == null) {
            if (record.getState() == RunState.RUNNING) {
                throw new ProblemException(Problem.CONFLICT, "workload " + id + " is being recorded; try again");
            }
            repository.delete(record);
            return null;
        }
        r.workload.cancel();
        await(r, CANCEL_WAIT);
        return get(id);
    }

    public int runningCount() {
        return running.size();
    }

    /* ---- the workload's thread ---- */

    private void run(Running r) {
        publish(r, EventType.PROGRESS, progressData(r, null));
        RunState how = RunState.FINISHED;
        WorkloadResult result = null;
        String error = null;
        try {
            result = r.workload.execute(sample -> {
                r.last = sample;
                publish(r, EventType.PROGRESS, progressData(r, sample));
            });
            if (result.cancelled()) {
                how = RunState.CANCELLED;
                error = stopping ? "the service stopped while it ran" : "cancelled by request";
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "workload " + r.id + " failed", e);
            how = RunState.FAILED;
            error = e.toString();
        }
        try {
            WorkloadEntity record = record(r.id);
            record.end(how, Instant.now().truncatedTo(ChronoUnit.MICROS),
                    result == null ? null : json.writeValueAsString(WorkloadView.Report.of(result)), error);
            repository.save(record);
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("state", how.label());
            data.put("completed", how == RunState.FINISHED);
            if (result != null) {
                data.put("readIops", result.read().iops());
                data.put("writeIops", result.write().iops());
                data.put("errors", result.errors());
                data.put("verifyMismatches", result.verify().mismatches());
            }
            publish(r, EventType.ENDED, data);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "cannot record the end of workload " + r.id, e);
        } finally {
            running.remove(r.id);
            r.ended.complete(null);
        }
    }

    private void publish(Running r, EventType type, Map<String, Object> data) {
        hub.publish(Event.Draft.of(type, EventKind.WORKLOAD, Long.toString(r.id)).parent(r.device).data(data));
    }

    private Map<String, Object> progressData(Running r, WorkloadSample s) {
        WorkloadView.Progress p = progress(r, s);
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("elapsedMillis", p.elapsedMillis());
        if (p.percent() != null) {
            d.put("percent", p.percent());
        }
        d.put("readIops", p.readIops());
        d.put("writeIops", p.writeIops());
        d.put("readBytesPerSecond", p.readBytesPerSecond());
        d.put("writeBytesPerSecond", p.writeBytesPerSecond());
        d.put("errors", p.errors());
        return d;
    }

    private static WorkloadView.Progress progress(Running r, WorkloadSample s) {
        long elapsed = (System.nanoTime() - r.startNanos) / 1_000_000;
        long done = s == null ? 0 : s.reads() + s.writes();
        long planned = r.workload.plannedIos();
        Double percent = null;
        if (planned > 0) {
            percent = Math.min(100.0, done * 100.0 / planned);
        }
        if (r.settings.runtime() > 0) {
            double byTime = Math.min(100.0, elapsed * 1e6 * 100.0 / r.settings.runtime());
            percent = percent == null ? byTime : Math.max(percent, byTime);
        }
        if (percent != null) {
            percent = Math.round(percent * 10) / 10.0;
        }
        if (s == null) {
            return new WorkloadView.Progress(elapsed, percent, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        }
        return new WorkloadView.Progress(elapsed, percent, s.readIops(), s.writeIops(), s.readBytesPerSecond(),
                s.writeBytesPerSecond(), s.readP99Nanos() / 1000.0, s.writeP99Nanos() / 1000.0, s.reads(), s.writes(),
                s.errors());
    }

    private static void await(Running r, Duration max) {
        try {
            r.ended.get(max.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.log(Level.WARNING, "workload " + r.id + " did not end within " + max + " of its cancel");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /* ---- views ---- */

    private WorkloadEntity record(long id) {
        return repository.findById(id).orElseThrow(() -> ProblemException.notFound("workload", Long.toString(id)));
    }

    private WorkloadView view(WorkloadEntity rec) {
        Running r = running.get(rec.getId());
        WorkloadSettings settings = json.readValue(rec.getSpec(), WorkloadSettings.class);
        WorkloadView.Report result = rec.getResult() == null ? null : json.readValue(rec.getResult(), WorkloadView.Report.class);
        boolean live = r != null && rec.getState() == RunState.RUNNING;
        return new WorkloadView(rec.getId(), rec.getDeviceName(), rec.getState().label(), settings, rec.getStartedAt(),
                rec.getEndedAt(), live ? progress(r, r.last) : null, result, rec.getError());
    }

    /* ---- start and stop of the service ---- */

    /** Rows a crash left "running" did not finish: say so. */
    @EventListener(ApplicationStartedEvent.class)
    void markInterrupted() {
        for (WorkloadEntity rec : repository.findByStateAndNode(RunState.RUNNING.label(), local.name())) {
            if (!running.containsKey(rec.getId())) {
                rec.end(RunState.INTERRUPTED, rec.getStartedAt(), null, "the service stopped while it ran");
                repository.save(rec);
            }
        }
    }

    /** Ends every running workload before anything beneath them stops (this listener runs first). */
    @EventListener(ContextClosedEvent.class)
    @Order(Ordered.HIGHEST_PRECEDENCE)
    void stopAll() {
        stopping = true;
        List<Running> all = new ArrayList<>(running.values());
        all.forEach(r -> r.workload.cancel());
        all.forEach(r -> await(r, CANCEL_WAIT));
    }
}
