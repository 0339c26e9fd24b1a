package io.blockwork.shared.openapi;

import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.viewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.httpBasic;

import io.blockwork.support.AppTest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.web.FilterChainProxy;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * Issue 13, acceptance 5: every operation of the OpenAPI document, as nobody, with bad
 * credentials, as the viewer and as the admin, against the service's security configuration; the
 * rule is {@link AuthMatrix}. A new operation is covered the moment it is in the document.
 */
@AppTest
class AuthMatrixTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    FilterChainProxy securityFilters;
    @Autowired
    WebApplicationContext context;

    @Test
    void everyOperationRefusesNobodyTheViewerChangesAndDataAndNeverTheAdmin() throws Exception {
        List<ApiOperations.Operation> operations = ApiOperations.load().all();
        assertThat(operations).hasSizeGreaterThan(50);
        assertThat(operations.stream().map(Object::toString)).containsAll(AuthMatrix.PUBLIC)
                .containsAll(AuthMatrix.DATA_READS);

        List<String> wrong = AuthMatrix.wrongAnswers(operations, this::status);

        assertThat(wrong).as("operations that answered the wrong status for who asked").isEmpty();
    }

    private int status(ApiOperations.Operation op, AuthMatrix.Caller caller) throws Exception {
        MockHttpServletRequestBuilder request = request(op);
        switch (caller) {
            case NOBODY -> { }
            case WRONG_PASSWORD -> request.with(httpBasic("admin", "not-the-password"));
            case UNKNOWN_USER -> request.with(httpBasic("nobody", "x"));
            case VIEWER -> request.with(viewer());
            case ADMIN -> request.with(admin());
        }
        if (op.streams()) {
            return securityDecision(request);
        }
        return mvc.perform(request).andReturn().getResponse().getStatus();
    }

    /**
     * The status the security filters give, with a controller behind them that answers 200: for an
     * event stream, whose controller keeps the request open as long as the client stays. Who may
     * call an operation is decided by these filters alone (there is no method security).
     */
    private int securityDecision(MockHttpServletRequestBuilder request) throws Exception {
        MockHttpServletRequest servletRequest = request.postProcessRequest(request.buildRequest(
                context.getServletContext()));
        MockHttpServletResponse response = new MockHttpServletResponse();
        securityFilters.doFilter(servletRequest, response, (req, res) -> ((HttpServletResponse) res).setStatus(200));
        return response.getStatus();
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
