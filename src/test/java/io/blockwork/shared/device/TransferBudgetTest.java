package io.blockwork.shared.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class TransferBudgetTest {

    private static final long MIB = 1 << 20;

    @Test
    void transfersBeyondTheBudgetAreRefusedUntilOthersFinish() {
        TransferBudget budget = new TransferBudget(32 * MIB);
        TransferBudget.Reservation a = budget.reserve(16 * MIB);
        TransferBudget.Reservation b = budget.reserve(16 * MIB);
        assertThatThrownBy(() -> budget.reserve(512)).isInstanceOfSatisfying(ProblemException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.SERVICE_BUSY);
            assertThat(e.problem().status()).isEqualTo(503);
            assertThat(e.properties()).containsEntry("retryAfterSeconds", 1);
        });
        a.close();
        a.close(); // twice releases once
        assertThat(budget.reservedBytes()).isEqualTo(16 * MIB);
        budget.reserve(16 * MIB).close();
        b.close();
        assertThat(budget.reservedBytes()).isZero();
    }

    @Test
    void aTransferLargerThanTheBudgetGoesAloneAndDefaultIsAQuarterOfTheHeap() {
        TransferBudget budget = new TransferBudget(MIB);
        try (TransferBudget.Reservation big = budget.reserve(16 * MIB)) {
            assertThatThrownBy(() -> budget.reserve(512)).isInstanceOf(ProblemException.class);
        }
        assertThat(new TransferBudget(0).budgetBytes()).isEqualTo(Runtime.getRuntime().maxMemory() / 4);
    }
}
