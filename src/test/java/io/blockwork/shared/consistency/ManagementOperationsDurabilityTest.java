package io.blockwork.shared.consistency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.shared.node.NodeLease;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mockito.Mockito;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * The order that makes an answer durable: commit, then sync the database to stable storage, then
 * return; a rolled-back operation has nothing to sync.
 */
@Tag("unit")
class ManagementOperationsDurabilityTest {

    private final List<String> events = new ArrayList<>();

    private final ManagementOperations management = new ManagementOperations(new RecordingTransactions(),
            new DurableCommits(null) {
                @Override
                public void sync() {
                    events.add("sync");
                }
            }, heldLease());

    /** A lease this instance holds (the real one takes a row in the database at construction). */
    private static NodeLease heldLease() {
        NodeLease lease = Mockito.mock(NodeLease.class);
        Mockito.when(lease.held()).thenReturn(true);
        return lease;
    }

    @Test
    void anOperationReturnsOnlyAfterItsCommitWasSynced() {
        String result = management.apply(changes -> {
            events.add("operation");
            changes.afterCommit(() -> events.add("after-commit step"));
            return "answer";
        });
        events.add("returned " + result);
        assertThat(events).containsExactly("operation", "commit", "after-commit step", "sync", "returned answer");
    }

    @Test
    void aRefusedOperationIsNotSynced() {
        assertThatThrownBy(() -> management.run(changes -> {
            events.add("operation");
            throw new IllegalStateException("refused");
        })).hasMessage("refused");
        assertThat(events).containsExactly("operation", "rollback");
    }

    /** A transaction manager without a database that writes down what it was asked to do. */
    private final class RecordingTransactions extends AbstractPlatformTransactionManager {
        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            events.add("commit");
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            events.add("rollback");
        }
    }
}
