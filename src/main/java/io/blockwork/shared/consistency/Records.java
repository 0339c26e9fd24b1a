package io.blockwork.shared.consistency;

import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.data.jpa.repository.JpaRepository;

/** Saving a configuration record inside a management operation. */
public final class Records {

    private Records() {}

    /**
     * Saves and flushes {@code record}, so that a constraint the database enforces (a unique name)
     * fails here, inside the operation, as a conflict naming {@code what} ("pool vg0"), and the
     * operation's engine changes are undone with it.
     */
    public static <T> T save(JpaRepository<T, ?> repository, T record, String what) {
        try {
            return repository.saveAndFlush(record);
        } catch (DataIntegrityViolationException e) {
            throw new ProblemException(Problem.CONFLICT, "the database refused " + what + ": "
                    + e.getMostSpecificCause().getMessage()).causedBy(e);
        }
    }
}
