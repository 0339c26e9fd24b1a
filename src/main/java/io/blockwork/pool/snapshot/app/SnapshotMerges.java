package io.blockwork.pool.snapshot.app;

import io.blockwork.engine.dm.DmException;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.snapshot.SnapshotStatus;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.snapshot.store.SnapshotEntity;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.pool.volume.store.VolumeRepository;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.event.Event;
import io.blockwork.shared.event.EventHub;
import io.blockwork.shared.event.EventKind;
import io.blockwork.shared.event.EventType;
import io.blockwork.pool.app.PoolService;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import jakarta.annotation.PreDestroy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Service;

/**
 * Merges (rollbacks) of volume snapshots: a merge makes the volume show the snapshot's content at
 * once and copies the snapshot's chunks back in the background; a watcher finishes it (the
 * snapshot and its COW space go, {@link SnapshotTeardown}) when the merge target reports it done.
 * While it runs, the snapshot's name stays taken as {@code merging}.
 *
 * <p>The merge's events come from here, where its start and end are known for certain: a
 * {@code progress} event when it starts and at most once a second while it copies (from the
 * watcher, which looks every 100 ms), and {@code ended} when the snapshot is gone (or the merge
 * failed). A merge shorter than a second still has its start and its end told.
 */
@Service
public class SnapshotMerges {

    private static final System.Logger LOG = System.getLogger(SnapshotMerges.class.getName());

    private final PoolService pools;
    private final VolumeRepository volumes;
    private final SnapshotRecords records;
    private final SnapshotDevices devices;
    private final SnapshotTeardown teardown;
    private final SnapshotViews views;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final EventHub hub;
    /** Snapshots merging into their volumes, by snapshot name; the watcher finishes them. */
    private final Map<String, Run> merging = new ConcurrentHashMap<>();

    /**
     * A merge being watched.
     *
     * @param exceptionsAtStart chunks to copy back when it began
     */
    private static final class Run {
        final String volume;
        final long exceptionsAtStart;
        /** Watcher thread only: when the last progress event went out; whether a failure was told. */
        long lastProgressNanos = System.nanoTime();
        boolean failureTold;

        Run(String volume, long exceptionsAtStart) {
            this.volume = volume;
            this.exceptionsAtStart = exceptionsAtStart;
        }
    }
    private final ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("snapshot-merge-watcher").factory());

    SnapshotMerges(PoolService pools, VolumeRepository volumes, SnapshotRecords records, SnapshotDevices devices, SnapshotTeardown teardown,
                   SnapshotViews views, DeviceRegistry registry, ManagementOperations management, EventHub hub) {
        this.pools = pools;
        this.volumes = volumes;
        this.records = records;
        this.devices = devices;
        this.teardown = teardown;
        this.views = views;
        this.registry = registry;
        this.management = management;
        this.hub = hub;
        watcher.scheduleWithFixedDelay(this::finishMerges, 100, 100, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        watcher.shutdownNow();
    }

    /**
     * Rolls the volume back to the snapshot: from now on the volume reads as the snapshot, while its
     * chunks are copied back. When that is done the snapshot and its COW space are gone.
     */
    public SnapshotView merge(String poolName, String volumeName, String name) {
        return management.apply(changes -> {
            PoolEntity pool = pools.local(poolName);
            VolumeEntity volume = pools.volume(pool, volumeName);
            SnapshotEntity record = records.of(volume, name);
            records.merging(volume).ifPresent(r -> {
                throw new ProblemException(Problem.INVALID_STATE, "volume " + volumeName + " is merging snapshot "
                        + r.getName() + " already; one merge at a time").with("merging", r.getName());
            });
            if (!StoreType.PERSISTENT.code().equals(record.getStore())) {
                throw new ProblemException(Problem.NOT_SUPPORTED, "snapshot " + name + " is transient: only persistent"
                        + " snapshots can be merged");
            }
            RegisteredDevice entry = registry.require(name);
            MappedDevice snap = entry.device(MappedDevice.class).orElseThrow(() -> new ProblemException(
                    Problem.CONFLICT, "snapshot " + name + " is not active (" + entry.state().reason()
                    + "), so it cannot be merged"));
            if (!entry.holders().isEmpty()) {
                List<String> holders = entry.holders().stream().map(Holder::toString).sorted().toList();
                throw new ProblemException(Problem.DEVICE_BUSY, "snapshot " + name + " is used by "
                        + String.join(", ", holders) + "; a merge removes its device, so remove them first")
                        .with("holders", holders);
            }
            SnapshotStatus status = Snapshots.status(snap).orElseThrow();
            if (status.state() != SnapshotStatus.State.VALID) {
                throw new ProblemException(Problem.CONFLICT, "snapshot " + name + " is " + status.text()
                        + ": its content is incomplete, so it cannot be merged; delete it");
            }
            MappedDevice v = devices.liveVolume(volumeName);
            record.setMergeExceptions(status.exceptions());
            records.save(record);
            RegisteredDevice taken = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(taken));
            registry.reserve(name, DeviceKind.SNAPSHOT, SnapshotHolds.mergingState(volumeName));
            changes.undoOnRollback(() -> registry.unregister(name));
            // the one step that is not undone: last, after everything that can fail
            try {
                devices.merge(v, snap);
            } catch (DmException e) {
                throw new ProblemException(Problem.CONFLICT, e.getMessage()).causedBy(e);
            }
            Run run = new Run(volumeName, status.exceptions());
            merging.put(name, run);
            changes.afterCommit(() -> publish(EventType.PROGRESS, name, run, status.exceptions(), "phase", "started"));
            return views.view(record, volume, pool);
        });
    }

    /** Start-up: a merge that was running continues; the watcher finishes it. */
    void watch(String snapshot, String volume, Long exceptionsAtStart) {
        merging.put(snapshot, new Run(volume, exceptionsAtStart == null ? 0 : exceptionsAtStart));
    }

    boolean isMerging(String snapshot) {
        return merging.containsKey(snapshot);
    }

    private void finishMerges() {
        for (Map.Entry<String, Run> m : merging.entrySet()) {
            String name = m.getKey();
            Run run = m.getValue();
            SnapshotStatus status = registry.find(run.volume, MappedDevice.class).flatMap(Snapshots::status).orElse(null);
            if (status == null || status.merge() != SnapshotStatus.MergeState.DONE) {
                // not yet (or failed): nothing to do under the management lock
                progress(name, run, status);
                continue;
            }
            try {
                finishMerge(name);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot finish the merge of snapshot " + name + " yet", e);
            }
        }
    }

    /** A progress event at most once a second while the merge copies; its failure, once. */
    private void progress(String name, Run run, SnapshotStatus status) {
        if (status == null) {
            return;
        }
        long now = System.nanoTime();
        switch (status.merge()) {
            case RUNNING, STOPPED -> {
                if (now - run.lastProgressNanos >= 1_000_000_000L) {
                    run.lastProgressNanos = now;
                    publish(EventType.PROGRESS, name, run, status.exceptions(), "phase",
                            status.merge() == SnapshotStatus.MergeState.RUNNING ? "running" : "stopped");
                }
            }
            case FAILED -> {
                if (!run.failureTold) {
                    run.failureTold = true;
                    publish(EventType.ENDED, name, run, status.exceptions(), "completed", false);
                }
            }
            case NONE, DONE -> {
                // not a merge target (any more), or done: finishMerge tells the end
            }
        }
    }

    private void publish(EventType type, String snapshot, Run run, long exceptionsLeft, String key, Object value) {
        long start = run.exceptionsAtStart;
        long left = Math.min(start, exceptionsLeft);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("action", "merge");
        data.put("exceptionsAtStart", start);
        data.put("exceptionsLeft", left);
        data.put("percent", start == 0 ? 100.0 : Math.round(1000.0 * (start - left) / start) / 10.0);
        data.put(key, value);
        hub.publish(Event.Draft.of(type, EventKind.SNAPSHOT, snapshot).parent(run.volume).data(data));
    }

    private boolean mergeDone(String volume) {
        return registry.find(volume, MappedDevice.class).flatMap(Snapshots::status)
                .map(s -> s.merge() == SnapshotStatus.MergeState.DONE).orElse(false);
    }

    /** If the merge of {@code name} is done: the volume back to snapshot-origin (or linear), the snapshot gone. */
    void finishMerge(String name) {
        management.run(changes -> {
            SnapshotEntity record = records.find(name).filter(SnapshotEntity::isMerging).orElse(null);
            VolumeEntity volume = record == null ? null : volumes.findById(record.getVolumeId()).orElse(null);
            if (volume == null) {
                merging.remove(name);
                return;
            }
            if (!mergeDone(volume.getName())) {
                return;
            }
            RegisteredDevice reserved = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(reserved));
            teardown.takeOut(volume, record, changes);
            changes.afterCommit(() -> {
                Run run = merging.remove(name);
                if (run != null) {
                    publish(EventType.ENDED, name, run, 0, "completed", true);
                }
            });
        });
    }
}
