package io.blockwork.engine.seeds;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.workload.Workload;
import io.blockwork.engine.workload.WorkloadResult;
import io.blockwork.engine.workload.WorkloadSpec;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One run of a seed's workloads: runs them one at a time on platform threads, tells a listener
 * what it does (phase and per-second samples), and can be cancelled from another thread, which
 * ends the workload running now and every later one at once.
 *
 * <p>The benchmark programs use {@link #quiet()}; the service's experiments pass a listener that
 * turns progress into events, and cancel the run when the service stops.
 */
public final class SeedRun {

    private final Consumer<SeedProgress> listener;
    private volatile boolean cancelled;
    /** The workload running now, or null. */
    private volatile Workload current;

    public SeedRun(Consumer<SeedProgress> listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** A run nobody watches: the benchmark programs'. */
    public static SeedRun quiet() {
        return new SeedRun(p -> { });
    }

    /** Ends the workload running now (its I/Os in flight complete) and skips every later one. */
    public void cancel() {
        cancelled = true;
        Workload w = current;
        if (w != null) {
            w.cancel();
        }
    }

    public boolean cancelled() {
        return cancelled;
    }

    /** Tells the listener that the run moved to another step. */
    public void phase(String strategy, String what) {
        listener.accept(new SeedProgress(strategy, what, null));
    }

    /** Runs {@code spec} on {@code device} until it ends by itself (runtime, io limit). */
    public WorkloadResult execute(String strategy, BlockDevice device, WorkloadSpec spec) {
        return execute(strategy, device, spec, 0);
    }

    /**
     * Runs {@code spec} on {@code device}; with {@code stopAfterSeconds > 0} the measured phase is
     * ended from outside after that long (for jobs whose own clock checks come too rarely, as
     * with one-second fsyncs). A cancelled run returns at once with an empty, cancelled result.
     */
    public WorkloadResult execute(String strategy, BlockDevice device, WorkloadSpec spec, long stopAfterSeconds) {
        Workload load = new Workload(device, spec, Thread.ofPlatform().name("seed-" + strategy + "-", 0).factory());
        current = load;
        try {
            if (cancelled) {
                load.cancel();
            }
            if (stopAfterSeconds > 0) {
                Executor later = CompletableFuture.delayedExecutor(stopAfterSeconds, TimeUnit.SECONDS);
                later.execute(load::stop);
            }
            return load.execute(sample -> listener.accept(new SeedProgress(strategy, "running", sample)));
        } finally {
            current = null;
        }
    }

    /**
     * Writes every byte of {@code device} once (1 MiB at a time) and flushes: storage that exists
     * before the run, as on real disks, so first-touch allocation is not what is measured.
     */
    public void prefill(String strategy, BlockDevice device) {
        phase(strategy, "prefilling " + device.name());
        MemorySegment chunk = MemorySegment.ofArray(new byte[1 << 20]);
        chunk.fill((byte) 0x5a);
        for (long off = 0; off < device.sizeBytes() && !cancelled; off += chunk.byteSize()) {
            long len = Math.min(chunk.byteSize(), device.sizeBytes() - off);
            SyncIo.write(device, off, len == chunk.byteSize() ? chunk : chunk.asSlice(0, len));
        }
        SyncIo.flush(device);
    }
}
