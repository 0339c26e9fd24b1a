package io.blockwork.api.openapi;

import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.httpBasic;

import io.blockwork.support.AppTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.request.RequestPostProcessor;

/**
 * Issue 13, acceptance 5: every operation of the OpenAPI document, as nobody, with bad
 * credentials, as the viewer and as the admin. Nobody gets in (401); the viewer may read
 * configuration and statistics but gets 403 on every change and on device data; the admin is never
 * refused for who it is. Wrong credentials are 401 everywhere. The only operations open to
 * everybody are the problem type descriptions, which every error body links to. A new operation is covered the moment it is in the document.
 */
@AppTest
class AuthMatrixTest {

    /** Operations anybody may call, and why: problem bodies link to them. */
    private static final Set<String> PUBLIC = Set.of("GET /problems", "GET /problems/{code}");
    /** Reads the viewer may not make: they return device data. */
    private static final Set<String> DATA_READS = Set.of("GET /api/v1/devices/{name}/data");

    @Autowired
    MockMvc mvc;

    @Test
    void everyOperationRefusesNobodyTheViewerChangesAndDataAndNeverTheAdmin() throws Exception {
        List<String> wrong = new ArrayList<>();
        List<ApiOperations.Operation> operations = ApiOperations.load().all();
        assertThat(operations).hasSizeGreaterThan(50);
        for (ApiOperations.Operation op : operations) {
            String key = op.toString();
            boolean open = PUBLIC.contains(key);
            expect(wrong, op, "nobody", null, open ? "any but 401/403" : "401");
            // wrong credentials are refused even where none are needed: the client learns they are wrong
            expect(wrong, op, "admin with a wrong password", httpBasic("admin", "not-the-password"),
                    open ? "any but 403" : "401");
            expect(wrong, op, "an unknown user", httpBasic("nobody", "x"), open ? "any but 403" : "401");
            boolean viewerRefused = !open && (op.changes() || DATA_READS.contains(key));
            expect(wrong, op, "the viewer", viewer(), viewerRefused ? "403" : "any but 401/403");
            expect(wrong, op, "the admin", admin(), "any but 401/403");
        }
        assertThat(operations.stream().map(Object::toString)).containsAll(PUBLIC).containsAll(DATA_READS);
        assertThat(wrong).as("operations that answered the wrong status for who asked").isEmpty();
    }

    private void expect(List<String> wrong, ApiOperations.Operation op, String label, RequestPostProcessor who,
                        String expected) throws Exception {
        MockHttpServletRequestBuilder request = request(op);
        if (who != null) {
            request.with(who);
        }
        int status = mvc.perform(request).andReturn().getResponse().getStatus();
        boolean ok = switch (expected) {
            case "401" -> status == 401;
            case "403" -> status == 403;
            case "any but 403" -> status != 403;
            default -> status != 401 && status != 403;
        };
        if (!ok) {
            wrong.add(op + " as " + label + ": " + status + ", expected " + expected);
        }
    }

    /** The operation with made-up path parameters and a minimal body of its first media type. */
    private static MockHttpServletRequestBuilder request(ApiOperations.Operation op) {
        String path = op.path().replaceAll("\\{[^}]+}", "authz-none");
        MockHttpServletRequestBuilder r = MockMvcRequestBuilders.request(HttpMethod.valueOf(op.method()), path);
        for (ApiOperations.Param p : op.params("query")) {
            if (p.required()) {
                r.param(p.name(), "0");
            }
        }
        if (!op.bodies().isEmpty()) {
            String type = op.bodies().keySet().iterator().next();
            r.contentType(MediaType.parseMediaType(type));
            r.content(type.contains("json") ? "{}" : "x");
        }
        return r;
    }
}
