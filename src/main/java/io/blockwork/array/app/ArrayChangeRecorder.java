package io.blockwork.array.app;

import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArrays;
import io.blockwork.array.store.ArrayEntity;
import io.blockwork.array.store.ArrayRepository;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceRegistry;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Component;

/**
 * Writes down what arrays change on their own (md's superblock updates): a member failed on an
 * I/O error, the daemon took a spare into a slot, a rebuild or the initial resync finished.
 *
 * <p>The engine tells {@link MdArray#onChange} listeners from I/O completions and its daemon, which
 * must not block, so a change only marks the array's name pending; one worker thread then rewrites
 * the array's member rows from the engine's current state, as a management operation (so it is
 * ordered with the API's changes and never sees one half done). Requests coalesce: any number of
 * changes while a write is pending cost one write, and a change after the worker took the name
 * queues another, so the last write always reflects the last change.
 *
 * <p>Crash safety: the rows are rewritten from the engine's state, not from the event, so a lost
 * or late write leaves the database one step behind. For arrays with md metadata that is harmless:
 * the members' superblocks record a failure before the write that found it completes, and they,
 * not these rows, decide the next assembly. For arrays without metadata one gap remains: a member
 * failed by an I/O error just before a crash comes back in sync with stale data.
 */
@Component
class ArrayChangeRecorder {

    private static final System.Logger LOG = System.getLogger(ArrayChangeRecorder.class.getName());

    private final ManagementOperations management;
    private final ArrayRepository repository;
    private final MdArrays arrays;
    private final DeviceRegistry registry;
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final ExecutorService worker =
            Executors.newSingleThreadExecutor(Thread.ofVirtual().name("md-change-recorder").factory());
    private volatile boolean closed;

    ArrayChangeRecorder(ManagementOperations management, ArrayRepository repository, MdArrays arrays,
                        DeviceRegistry registry) {
        this.management = management;
        this.repository = repository;
        this.arrays = arrays;
        this.registry = registry;
    }

    /** From now on, changes {@code array} makes on its own are written down. */
    void watch(MdArray array) {
        String name = array.name();
        array.onChange(() -> request(name));
    }

    /** Rewrites the rows of array {@code name} from the engine soon; never blocks. */
    void request(String name) {
        if (closed || !pending.add(name)) {
            return;
        }
        try {
            worker.execute(() -> record(name));
        } catch (RejectedExecutionException e) {
            pending.remove(name);
        }
    }

    private void record(String name) {
        pending.remove(name);
        try {
            management.run(changes -> {
                MdArray array = arrays.get(name).orElse(null);
                ArrayEntity record = repository.findByName(name).orElse(null);
                boolean current = array != null && registry.find(name).map(e -> e.device() == array).orElse(false);
                if (record != null && current) {
                    MemberRows.write(record, array, d -> ArrayService.kindOf(registry, d));
                    repository.saveAndFlush(record);
                }
            });
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "cannot record the changes of array " + name
                    + "; the next change will try again", e);
        }
    }

    /**
     * Stops taking changes (the service is stopping: later ones are the shutdown's doing, not the
     * arrays'), and writes down those already taken.
     */
    void close() {
        closed = true;
        worker.shutdown();
        try {
            worker.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
