package io.blockwork.workload.experiment;

import io.blockwork.engine.seeds.SeedExperiment;
import io.blockwork.engine.seeds.SeedOutcome;
import io.blockwork.engine.seeds.SeedProgress;
import io.blockwork.engine.seeds.SeedRun;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.shared.node.store.LocalNode;
import io.blockwork.workload.store.ExperimentEntity;
import io.blockwork.workload.store.ExperimentRepository;
import io.blockwork.workload.store.RunState;
import io.blockwork.shared.event.Event;
import io.blockwork.shared.event.EventHub;
import io.blockwork.shared.event.EventKind;
import io.blockwork.shared.event.EventType;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.workload.app.WorkloadView;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.data.domain.Limit;
import org.springframework.stereotype.Service;
import tools.jackson.databind.json.JsonMapper;

/**
 * The seeds' experiments over REST: a seed's workload under its old strategy and its fix, on
 * scratch devices the engine builds for the run and drops after it (memory and null disks that
 * never enter the device name space), by the same code as the Maven benchmark
 * ({@code engine.seeds}). One at a time: they measure, and two would measure each other.
 */
@Service
public class ExperimentService {

    private static final System.Logger LOG = System.getLogger(ExperimentService.class.getName());
    public static final long DEFAULT_SECONDS = 5;
    public static final long MAX_SECONDS = 60;

    private final ExperimentRepository repository;
    /** Whose rows a crash left running this instance marks interrupted: its own node's only. */
    private final LocalNode local;
    private final EventHub hub;
    private final JsonMapper json;
    /** The experiment running now, or null. */
    private final AtomicReference<Running> current = new AtomicReference<>();
    private volatile boolean stopping;

    public ExperimentService(ExperimentRepository repository, EventHub hub, JsonMapper json, LocalNode local) {
        this.repository = repository;
        this.local = local;
        this.hub = hub;
        this.json = json;
    }

    private static final class Running {
        final long id;
        final SeedRun run;
        final CompletableFuture<Void> ended = new CompletableFuture<>();
        volatile ExperimentView.Progress progress = new ExperimentView.Progress("", "starting", null);
        volatile long lastEventNanos;

        Running(long id, SeedRun run) {
            this.id = id;
            this.run = run;
        }
    }

    public ExperimentView start(String seed, Long seconds) {
        if (seed == null || seed.isBlank()) {
            throw ProblemException.invalid("seed", "seed is required: 000, 001, 002, 003 or 004");
        }
        SeedExperiment experiment;
        try {
            experiment = SeedExperiment.of(seed.strip());
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalid("seed", e.getMessage());
        }
        long secs = seconds == null ? DEFAULT_SECONDS : seconds;
        if (secs < 1 || secs > MAX_SECONDS) {
            throw ProblemException.invalid("seconds", "seconds must be 1.." + MAX_SECONDS + ", not " + secs);
        }
        if (stopping) {
            throw new ProblemException(Problem.CONFLICT, "the service is stopping");
        }
        ExperimentEntity record = new ExperimentEntity(experiment.seed(), secs, Instant.now().truncatedTo(ChronoUnit.MICROS));
        Running placeholder = new Running(-1, null);
        Running busy = current.compareAndExchange(null, placeholder);
        if (busy != null) {
            throw new ProblemException(Problem.CONFLICT, "experiment " + busy.id + " is running; one at a time")
                    .with("running", busy.id);
        }
        Running r;
        try {
            record = repository.save(record);
            long id = record.getId();
            Running[] self = new Running[1];
            SeedRun run = new SeedRun(p -> progressed(self[0], p));
            r = new Running(id, run);
            self[0] = r;
            current.set(r);
        } catch (RuntimeException e) {
            current.set(null);
            throw e;
        }
        Running started = r;
        Thread.ofVirtual().name("experiment-" + r.id).start(() -> run(started, experiment, secs));
        return view(record);
    }

    /** A seed an experiment can run: what it measures, and its strategies, the old one first. */
    public record Seed(String seed, String workload, String metric, boolean higherIsBetter, List<String> strategies) {}

    public List<Seed> seeds() {
        return SeedExperiment.all().stream().map(s -> new Seed(s.seed(), s.workload(), s.metric(), s.higherIsBetter(),
                s.strategies())).toList();
    }

    public ExperimentView get(long id) {
        return view(record(id));
    }

    public List<ExperimentView> list(int limit) {
        return repository.findAllByOrderByIdDesc(Limit.of(limit)).stream().map(this::view).toList();
    }

    /** Cancels the experiment if it runs (and returns it as recorded), else removes it from the history (null). */
    public ExperimentView cancel(long id) {
        Running r = current.get(); // before the record, for the reason WorkloadService.cancel gives
        ExperimentEntity record = record(id);
        if (r == null || r.id != id) {
            if (record.getState() == RunState.RUNNING) {
                throw new ProblemException(Problem.CONFLICT, "experiment " + id + " is being recorded; try again");
            }
            repository.delete(record);
            return null;
        }
        r.run.cancel();
        await(r);
        return get(id);
    }

    /* ---- the experiment's thread ---- */

    private void run(Running r, SeedExperiment experiment, long seconds) {
        RunState how = RunState.FINISHED;
        String error = null;
        ExperimentView.Result result = null;
        try {
            SeedOutcome outcome = experiment.run(seconds, r.run);
            if (r.run.cancelled()) {
                how = RunState.CANCELLED;
                error = stopping ? "the service stopped while it ran" : "cancelled by request";
            } else {
                result = result(outcome);
            }
        } catch (RuntimeException | OutOfMemoryError e) {
            LOG.log(Level.WARNING, "experiment " + r.id + " failed", e);
            how = RunState.FAILED;
            error = e.toString();
        }
        try {
            ExperimentEntity record = record(r.id);
            record.end(how, Instant.now().truncatedTo(ChronoUnit.MICROS),
                    result == null ? null : json.writeValueAsString(result), error);
            repository.save(record);
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("state", how.label());
            data.put("completed", how == RunState.FINISHED);
            if (result != null) {
                data.put("before", result.before().strategy());
                data.put("beforeValue", result.before().value());
                data.put("after", result.after().strategy());
                data.put("afterValue", result.after().value());
                data.put("metric", result.metric());
                data.put("ratio", result.ratio());
            }
            hub.publish(Event.Draft.of(EventType.ENDED, EventKind.EXPERIMENT, Long.toString(r.id)).data(data));
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "cannot record the end of experiment " + r.id, e);
        } finally {
            current.compareAndSet(r, null);
            r.ended.complete(null);
        }
    }

    /** Keeps the latest step; tells the hub at phase changes and at most once a second while running. */
    private void progressed(Running r, SeedProgress p) {
        if (r == null) {
            return;
        }
        ExperimentView.Progress before = r.progress;
        ExperimentView.Progress now = new ExperimentView.Progress(p.strategy(), p.phase(),
                p.sample() == null ? null : sample(p.sample()));
        r.progress = now;
        long t = System.nanoTime();
        boolean newPhase = !now.phase().equals(before.phase()) || !now.strategy().equals(before.strategy());
        if (newPhase || t - r.lastEventNanos >= 1_000_000_000L) {
            r.lastEventNanos = t;
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("strategy", now.strategy());
            data.put("phase", now.phase());
            if (now.sample() != null) {
                data.put("elapsedMillis", now.sample().elapsedMillis());
                data.put("readIops", now.sample().readIops());
                data.put("writeIops", now.sample().writeIops());
            }
            hub.publish(Event.Draft.of(EventType.PROGRESS, EventKind.EXPERIMENT, Long.toString(r.id)).data(data));
        }
    }

    private static ExperimentView.WorkloadSample sample(WorkloadResult.WorkloadSample s) {
        return new ExperimentView.WorkloadSample(s.elapsedMillis(), s.readIops(), s.writeIops(), s.readP99Nanos() / 1000.0,
                s.writeP99Nanos() / 1000.0);
    }

    private static ExperimentView.Result result(SeedOutcome o) {
        return new ExperimentView.Result(o.seed(), o.workload(), o.metric(), o.higherIsBetter(), strategy(o.before()),
                strategy(o.after()), o.ratio());
    }

    private static ExperimentView.Strategy strategy(SeedOutcome.Measured m) {
        return new ExperimentView.Strategy(m.strategy(), m.value(), WorkloadView.Report.of(m.result()),
                m.result().samples().stream().map(ExperimentService::sample).toList(), Map.copyOf(m.extra()));
    }

    private static void await(Running r) {
        try {
            r.ended.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            LOG.log(Level.WARNING, "experiment " + r.id + " did not end within 30 s of its cancel");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    private ExperimentEntity record(long id) {
        return repository.findById(id).orElseThrow(() -> ProblemException.notFound("experiment", Long.toString(id)));
    }

    private ExperimentView view(ExperimentEntity rec) {
        Running r = current.get();
        boolean live = r != null && r.id == rec.getId() && rec.getState() == RunState.RUNNING;
        ExperimentView.Result result = rec.getResult() == null ? null
                : json.readValue(rec.getResult(), ExperimentView.Result.class);
        return new ExperimentView(rec.getId(), rec.getSeed(), rec.getSeconds(), rec.getState().label(), rec.getStartedAt(),
                rec.getEndedAt(), live ? r.progress : null, result, rec.getError());
    }

    @EventListener(ApplicationStartedEvent.class)
    void markInterrupted() {
        for (ExperimentEntity rec : repository.findByStateAndNode(RunState.RUNNING.label(), local.name())) {
            rec.end(RunState.INTERRUPTED, rec.getStartedAt(), null, "the service stopped while it ran");
            repository.save(rec);
        }
    }

    @EventListener(ContextClosedEvent.class)
    @Order(Ordered.HIGHEST_PRECEDENCE)
    void stop() {
        stopping = true;
        Running r = current.get();
        if (r != null && r.run != null) {
            r.run.cancel();
            await(r);
        }
    }
}
