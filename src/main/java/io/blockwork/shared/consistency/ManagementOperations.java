package io.blockwork.shared.consistency;

import io.blockwork.shared.node.NodeLease;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs operations that change configuration: each in a database transaction whose outcome also
 * decides the fate of its engine changes ({@link EngineChanges}), so that the database and the
 * live engine change together or not at all.
 *
 * <p>Locking: operations run one at a time under {@link #lock}, held until after the commit. That
 * keeps the database and the engine changing in the same order (two racing updates cannot land
 * in one order in H2 and the other in the engine), and it makes cross-object checks, such as "is
 * this disk free to become an array member", hold until the change is committed. Management
 * operations are rare and short; I/O never takes this lock.
 */
@Component
public class ManagementOperations {

    private final ReentrantLock lock = new ReentrantLock(true);
    private final TransactionTemplate transactions;
    private final DurableCommits durable;
    private final NodeLease lease;

    public ManagementOperations(PlatformTransactionManager transactionManager, DurableCommits durable, NodeLease lease) {
        this.transactions = new TransactionTemplate(transactionManager);
        this.durable = durable;
        this.lease = lease;
    }

    /**
     * Runs {@code operation} as one consistent change and returns its result once it is durable.
     * Refused once this instance has lost its node's lease: another instance may be running the
     * node now.
     */
    public <T> T apply(Function<EngineChanges, T> operation) {
        lock.lock();
        try {
            if (!lease.held()) {
                throw new ProblemException(Problem.CONFLICT, "this instance lost the lease of its node name (missed"
                        + " heartbeats; another instance may run the node now): configuration changes are refused"
                        + " until it restarts");
            }
            T result = transactions.execute(status -> {
                EngineChanges changes = new EngineChanges();
                TransactionSynchronizationManager.registerSynchronization(changes);
                return operation.apply(changes);
            });
            durable.sync();
            return result;
        } finally {
            lock.unlock();
        }
    }

    public void run(Consumer<EngineChanges> operation) {
        apply(changes -> {
            operation.accept(changes);
            return null;
        });
    }

    /** Runs {@code work} while no management operation can start, e.g. assembly at start-up. */
    public void exclusively(Runnable work) {
        lock.lock();
        try {
            work.run();
        } finally {
            lock.unlock();
        }
    }
}
