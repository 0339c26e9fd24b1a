package io.blockwork.shared.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The must-fail twin of {@link AuthMatrixTest}: the same rule over the same document, against a
 * stand-in security configuration with holes a careless change could open. The matrix names each
 * hole, and nothing else; without holes the stand-in passes, so the holes are what it catches.
 */
@Tag("unit")
class AuthMatrixRejectsHolesTest {

    private static final String DATA_WRITE = "PUT /api/v1/devices/{name}/data";
    private static final String DISK_LIST = "GET /api/v1/disks";
    private static final String DISK_CREATE = "POST /api/v1/disks";

    private final List<ApiOperations.Operation> operations = ApiOperations.load().all();

    /** A configuration that follows the rule, but for the operations in {@code holes}. */
    private static AuthMatrix.Service configuration(boolean withHoles) {
        return (op, caller) -> {
            String key = op.toString();
            boolean open = AuthMatrix.PUBLIC.contains(key);
            if (withHoles && key.equals(DATA_WRITE) && caller == AuthMatrix.Caller.VIEWER) {
                return 204; // the viewer may write device data
            }
            if (withHoles && key.equals(DISK_LIST) && caller == AuthMatrix.Caller.NOBODY) {
                return 200; // the configuration is listed to anybody
            }
            if (withHoles && key.equals(DISK_CREATE) && caller == AuthMatrix.Caller.ADMIN) {
                return 403; // a role check too strict for the admin
            }
            return switch (caller) {
                case NOBODY -> open ? 200 : 401;
                case WRONG_PASSWORD, UNKNOWN_USER -> 401;
                case VIEWER -> !open && (op.changes() || AuthMatrix.DATA_READS.contains(key)) ? 403 : 200;
                case ADMIN -> 200;
            };
        };
    }

    @Test
    void aConfigurationThatFollowsTheRulePasses() throws Exception {
        assertThat(AuthMatrix.wrongAnswers(operations, configuration(false))).isEmpty();
    }

    @Test
    void theMatrixNamesEveryHoleAndNothingElse() throws Exception {
        assertThat(operations.stream().map(Object::toString)).contains(DATA_WRITE, DISK_LIST, DISK_CREATE);

        List<String> wrong = AuthMatrix.wrongAnswers(operations, configuration(true));

        assertThat(wrong).containsExactlyInAnyOrder(
                DATA_WRITE + " as the viewer: 204, expected 403",
                DISK_LIST + " as nobody: 200, expected 401",
                DISK_CREATE + " as the admin: 403, expected any but 401/403");
    }
}
