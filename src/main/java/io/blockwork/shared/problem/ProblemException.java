package io.blockwork.shared.problem;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A use case refused or failed in a way the caller should hear about: which {@link Problem}, a
 * human-readable detail, the request field at fault (if one is), and extra members for the
 * problem body (e.g. the {@code holders} of a busy device).
 */
public class ProblemException extends RuntimeException {

    private final Problem problem;
    private final String field;
    private final Map<String, Object> properties;

    public ProblemException(Problem problem, String detail) {
        this(problem, detail, null, Map.of(), null);
    }

    private ProblemException(Problem problem, String detail, String field, Map<String, Object> properties,
                             Throwable cause) {
        super(detail, cause);
        this.problem = problem;
        this.field = field;
        this.properties = properties;
    }

    /** The same failure, blamed on request field {@code name} (a JSON path or parameter name). */
    public ProblemException atField(String name) {
        return new ProblemException(problem, getMessage(), name, properties, getCause());
    }

    /** The same failure with one more member in the problem body. */
    public ProblemException with(String key, Object value) {
        Map<String, Object> more = new LinkedHashMap<>(properties);
        more.put(key, value);
        return new ProblemException(problem, getMessage(), field, Collections.unmodifiableMap(more), getCause());
    }

    public ProblemException causedBy(Throwable cause) {
        return new ProblemException(problem, getMessage(), field, properties, cause);
    }

    public static ProblemException notFound(String what, String name) {
        return new ProblemException(Problem.NOT_FOUND, "no " + what + " named '" + name + "'");
    }

    public static ProblemException invalid(String field, String detail) {
        return new ProblemException(Problem.VALIDATION_FAILED, detail).atField(field);
    }

    public Problem problem() {
        return problem;
    }

    public String detail() {
        return getMessage();
    }

    /** The request field at fault, or null. */
    public String field() {
        return field;
    }

    public Map<String, Object> properties() {
        return properties;
    }
}
