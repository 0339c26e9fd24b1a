package io.blockwork.shared.device;

import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The memory REST transfers may hold at once. A read or write through the data endpoints holds a
 * buffer of its whole length (up to 16 MiB) until its response has gone out, which for a slow
 * client is as long as it likes: without a bound, a few hundred slow 16 MiB reads took the whole
 * heap and other requests failed. Each transfer reserves its bytes first; one that does not fit
 * is refused at once with 503 service-busy and Retry-After, before any buffer is allocated.
 *
 * <p>The budget is {@code blockwork.rest.transfer-budget} bytes, by default a quarter of the
 * maximum heap. A transfer larger than the budget is let in alone, when nothing else is reserved.
 */
@Component
public class TransferBudget {

    /** Seconds a refused client is told to wait: about what a 16 MiB transfer takes to drain. */
    static final int RETRY_AFTER_SECONDS = 1;

    private final long budget;
    /** Bytes reserved by transfers in progress; changed by compare-and-set only. */
    private final AtomicLong reserved = new AtomicLong();

    public TransferBudget(@Value("${blockwork.rest.transfer-budget:0}") long budget) {
        this.budget = budget > 0 ? budget : Runtime.getRuntime().maxMemory() / 4;
    }

    public long budgetBytes() {
        return budget;
    }

    public long reservedBytes() {
        return reserved.get();
    }

    /**
     * Reserves {@code bytes} for one transfer, or throws service-busy; close the reservation when
     * the transfer's buffer is no longer needed (its response sent).
     */
    public Reservation reserve(long bytes) {
        long want = Math.max(0, bytes);
        while (true) {
            long now = reserved.get();
            boolean fits = now == 0 || want <= budget - now;
            if (!fits) {
                throw new ProblemException(Problem.SERVICE_BUSY, "too many transfers in progress: " + now
                        + " of the " + budget + " bytes set aside for REST transfers are in use, this one needs "
                        + want + "; retry in " + RETRY_AFTER_SECONDS + " s")
                        .with("retryAfterSeconds", RETRY_AFTER_SECONDS);
            }
            if (reserved.compareAndSet(now, now + want)) {
                return new Reservation(want);
            }
        }
    }

    /** Bytes held for one transfer; closing twice releases once. */
    public final class Reservation implements AutoCloseable {
        private final AtomicLong bytes;

        private Reservation(long bytes) {
            this.bytes = new AtomicLong(bytes);
        }

        @Override
        public void close() {
            reserved.addAndGet(-bytes.getAndSet(0));
        }
    }
}
