package io.blockwork.array.app;

import io.blockwork.engine.md.MdArgumentException;
import io.blockwork.engine.md.MdStateException;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The md engine's refusals as problems: malformed input ({@link MdArgumentException}) is 400
 * validation-failed, a refusal in the current state ({@link MdStateException}) is 409 conflict;
 * both keep the engine's field, renamed where the API calls it differently. The engine changed
 * nothing when it threw.
 */
final class MdErrors {

    private MdErrors() {}

    static <T> T call(Supplier<T> operation, UnaryOperator<String> field) {
        try {
            return operation.get();
        } catch (MdArgumentException e) {
            throw ProblemException.invalid(field.apply(e.field()), e.getMessage()).causedBy(e);
        } catch (MdStateException e) {
            throw new ProblemException(Problem.CONFLICT, e.getMessage()).atField(field.apply(e.field())).causedBy(e);
        }
    }

    static <T> T call(Supplier<T> operation) {
        return call(operation, UnaryOperator.identity());
    }

    static void run(Runnable operation, UnaryOperator<String> field) {
        call(() -> {
            operation.run();
            return null;
        }, field);
    }

    static void run(Runnable operation) {
        run(operation, UnaryOperator.identity());
    }

    /** Renames one engine field. */
    static UnaryOperator<String> rename(String engineField, String apiField) {
        return f -> f.equals(engineField) ? apiField : f;
    }
}
