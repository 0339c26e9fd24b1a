package io.blockwork.shared.problem.web;

import io.blockwork.shared.problem.Problem;
import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Replaces Boot's /error page for failures that never reach a controller (the servlet container
 * refusing a request, an error sent by a filter): they too get a problem+json body.
 */
@Hidden
@RestController
class ErrorPageController implements ErrorController {

    @RequestMapping("/error")
    ResponseEntity<Object> error(HttpServletRequest request) {
        if (request.getDispatcherType() != DispatcherType.ERROR) {
            // asked for directly: there is no error to report, and no such resource
            return ProblemBodies.response(Problem.NOT_FOUND, "no such path: /error", null, Map.of(), null, request);
        }
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i ? i : 500;
        Problem problem = ProblemBodies.forStatus(status);
        Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        String detail = problem.status() < 500 && message instanceof String s && !s.isBlank() ? s : problem.title();
        return ProblemBodies.response(problem, detail, null, Map.of(), null, request);
    }
}
