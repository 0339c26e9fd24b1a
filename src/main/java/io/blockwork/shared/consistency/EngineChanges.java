package io.blockwork.shared.consistency;

import java.util.ArrayList;
import java.util.List;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * What one management operation did to live engine objects, kept so the database transaction's
 * outcome decides it: on rollback the undo steps run (newest first), on commit the after-commit
 * steps run. Build and check an engine object before saving its record, then record the undo of
 * each engine change as soon as it is made; a failure at any later point, the commit included,
 * leaves both the database and the engine as they were.
 */
public final class EngineChanges implements TransactionSynchronization {

    private static final System.Logger LOG = System.getLogger(EngineChanges.class.getName());

    /** Only touched by the thread running the operation. */
    private final List<Runnable> undo = new ArrayList<>();
    private final List<Runnable> onCommit = new ArrayList<>();

    EngineChanges() {}

    /** Runs {@code step} if the operation's transaction does not commit. */
    public void undoOnRollback(Runnable step) {
        undo.add(step);
    }

    /**
     * Runs {@code step} once the transaction has committed: for changes that cannot be taken back,
     * such as closing a disk or deleting its file.
     */
    public void afterCommit(Runnable step) {
        onCommit.add(step);
    }

    @Override
    public void afterCompletion(int status) {
        if (status == STATUS_COMMITTED) {
            onCommit.forEach(step -> runLogged(step, "after-commit step"));
        } else {
            for (int i = undo.size() - 1; i >= 0; i--) {
                runLogged(undo.get(i), "undo step");
            }
        }
    }

    /** One failed step must not keep the others from running. */
    private static void runLogged(Runnable step, String what) {
        try {
            step.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, what + " failed; database and engine may disagree", e);
        }
    }
}
