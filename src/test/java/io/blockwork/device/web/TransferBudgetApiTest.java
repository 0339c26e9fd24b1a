package io.blockwork.device.web;

import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.shared.device.TransferBudget;
import io.blockwork.support.AppTest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Reads and writes of device data hold a share of the transfer budget while their buffer lives;
 * when it is spent (by slow clients) others are told 503 and when to retry, and nothing is done.
 */
@AppTest
class TransferBudgetApiTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    TransferBudget budget;

    @Test
    void aSpentBudgetAnswersServiceBusyWithRetryAfterAndFreesWhenTransfersEnd() throws Exception {
        mvc.perform(memoryDisk("tb-d", "1MiB")).andExpect(status().isCreated());
        try (TransferBudget.Reservation slowClients = budget.reserve(budget.budgetBytes())) {
            mvc.perform(readData("tb-d", 0, 4096)).andExpect(problem(503, "service-busy"))
                    .andExpect(header().string("Retry-After", "1"));
            mvc.perform(writeData("tb-d", 0, new byte[4096])).andExpect(problem(503, "service-busy"));
            assertThat(budget.reservedBytes()).isEqualTo(budget.budgetBytes());
        }
        mvc.perform(writeData("tb-d", 0, new byte[4096])).andExpect(status().isNoContent());
        mvc.perform(readData("tb-d", 0, 4096)).andExpect(status().isOk());
        assertThat(budget.reservedBytes()).isZero();
    }
}
