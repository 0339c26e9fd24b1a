package io.blockwork.shared.security;

import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Spring Security's 401 and 403 answers, and its firewall's refusals (400), handed to the MVC
 * exception resolvers so they are rendered by the same advice as every other problem.
 */
@Component
class ProblemSecurityHandlers implements AuthenticationEntryPoint, AccessDeniedHandler, RequestRejectedHandler {

    private final HandlerExceptionResolver resolver;

    ProblemSecurityHandlers(@Qualifier("handlerExceptionResolver") HandlerExceptionResolver resolver) {
        this.resolver = resolver;
    }

    @Override
    public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException e) {
        resolver.resolveException(request, response, null, e);
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException e) {
        resolver.resolveException(request, response, null, e);
    }

    /** The firewall's refusals (an encoded slash or a dot segment in the path, a bad header). */
    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, RequestRejectedException e) {
        resolver.resolveException(request, response, null, new ProblemException(Problem.VALIDATION_FAILED,
                "the request was refused before it was read: " + e.getMessage()));
    }
}
