package io.blockwork.shared.openapi;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The authorization matrix of issue 13 (acceptance 5) as a rule over the OpenAPI document's
 * operations: who calls, what status that caller must get. {@link AuthMatrixTest} asks the real
 * security configuration; {@link AuthMatrixRejectsHolesTest} shows the rule catches a hole.
 *
 * <p>Nobody and wrong credentials get 401 everywhere (wrong credentials even where none are
 * needed: the client learns they are wrong); the viewer may read configuration and statistics
 * but gets 403 on every change and on device data; the admin is never refused for who it is. The
 * only operations open to everybody are the problem type descriptions, which every error body
 * links to.
 */
final class AuthMatrix {

    /** Operations anybody may call, and why: problem bodies link to them. */
    static final Set<String> PUBLIC = Set.of("GET /problems", "GET /problems/{code}");
    /** Reads the viewer may not make: they return device data. */
    static final Set<String> DATA_READS = Set.of("GET /api/v1/devices/{name}/data");

    /** Who calls. */
    enum Caller {
        NOBODY("nobody"),
        WRONG_PASSWORD("admin with a wrong password"),
        UNKNOWN_USER("an unknown user"),
        VIEWER("the viewer"),
        ADMIN("the admin");

        final String label;

        Caller(String label) {
            this.label = label;
        }
    }

    /** Answers one operation for one caller with the status the service gives. */
    @FunctionalInterface
    interface Service {
        int status(ApiOperations.Operation op, Caller caller) throws Exception;
    }

    private AuthMatrix() {}

    /** Every operation for every caller: the answers that break the rule, one line each. */
    static List<String> wrongAnswers(List<ApiOperations.Operation> operations, Service service) throws Exception {
        List<String> wrong = new ArrayList<>();
        for (ApiOperations.Operation op : operations) {
            for (Caller caller : Caller.values()) {
                String expected = expected(op, caller);
                int status = service.status(op, caller);
                boolean ok = switch (expected) {
                    case "401" -> status == 401;
                    case "403" -> status == 403;
                    case "any but 403" -> status != 403;
                    default -> status != 401 && status != 403;
                };
                if (!ok) {
                    wrong.add(op + " as " + caller.label + ": " + status + ", expected " + expected);
                }
            }
        }
        return wrong;
    }

    private static String expected(ApiOperations.Operation op, Caller caller) {
        String key = op.toString();
        boolean open = PUBLIC.contains(key);
        return switch (caller) {
            case NOBODY -> open ? "any but 401/403" : "401";
            case WRONG_PASSWORD, UNKNOWN_USER -> open ? "any but 403" : "401";
            case VIEWER -> !open && (op.changes() || DATA_READS.contains(key)) ? "403" : "any but 401/403";
            case ADMIN -> "any but 401/403";
        };
    }
}
