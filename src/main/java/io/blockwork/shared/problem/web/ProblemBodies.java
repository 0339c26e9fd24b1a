package io.blockwork.shared.problem.web;

import io.blockwork.shared.problem.Problem;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/** Builds the RFC 9457 body every failure is reported with: type, title, status, detail, instance, code, … */
final class ProblemBodies {

    /**
     * The longest detail sent. The messages quote their input shortened ({@code Quoted}); this is
     * the floor under a message that does not, so no failure sends a huge request back.
     */
    static final int DETAIL_LIMIT = 1024;

    private ProblemBodies() {}

    static ResponseEntity<Object> response(Problem problem, String detail, String field, Map<String, ?> properties,
                                           HttpHeaders headers, HttpServletRequest request) {
        ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(problem.status()), bounded(detail));
        body.setType(URI.create(problem.type()));
        body.setTitle(problem.title());
        body.setInstance(instance(request));
        body.setProperty("code", problem.code());
        if (field != null) {
            body.setProperty("field", field);
        }
        properties.forEach(body::setProperty);
        HttpHeaders out = new HttpHeaders();
        if (headers != null) {
            out.putAll(headers);
        }
        out.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        return new ResponseEntity<>(body, out, HttpStatusCode.valueOf(problem.status()));
    }

    static String bounded(String detail) {
        if (detail == null || detail.length() <= DETAIL_LIMIT) {
            return detail;
        }
        return detail.substring(0, DETAIL_LIMIT - 1) + "…";
    }

    /** The request's path; for a forwarded error, the path of the original request. */
    private static URI instance(HttpServletRequest request) {
        Object original = request.getAttribute("jakarta.servlet.error.request_uri");
        String path = original instanceof String s ? s : request.getRequestURI();
        try {
            return new URI(path);
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** Longest echo of a request's own text (a path) in a detail. */
    static final int ECHO_LIMIT = 120;

    /** {@code text} as a detail may echo it: whole if short, else its start, "…" and its length. */
    static String shortened(String text) {
        return text.length() <= ECHO_LIMIT ? text
                : text.substring(0, ECHO_LIMIT) + "… (" + text.length() + " characters)";
    }

    /** The problem a bare HTTP status stands for, when nothing more is known. */
    static Problem forStatus(int status) {
        return switch (status) {
            case 400 -> Problem.VALIDATION_FAILED;
            case 401 -> Problem.UNAUTHENTICATED;
            case 403 -> Problem.FORBIDDEN;
            case 404 -> Problem.NOT_FOUND;
            case 405 -> Problem.METHOD_NOT_ALLOWED;
            case 406 -> Problem.NOT_ACCEPTABLE;
            case 409 -> Problem.CONFLICT;
            case 413 -> Problem.PAYLOAD_TOO_LARGE;
            case 415 -> Problem.UNSUPPORTED_MEDIA_TYPE;
            default -> Problem.INTERNAL_ERROR;
        };
    }
}
