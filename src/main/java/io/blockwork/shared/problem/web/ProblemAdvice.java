package io.blockwork.shared.problem.web;

import io.blockwork.shared.json.BodySizeLimit;
import io.blockwork.engine.block.Quoted;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.validation.FieldError;
import org.springframework.web.ErrorResponse;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import org.springframework.web.servlet.resource.ResourceHttpRequestHandler;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * The one place failures become responses: {@link ProblemException}s from the services, Spring
 * MVC's own exceptions (through {@link ResponseEntityExceptionHandler}), authentication and
 * access failures (handed over by the security handlers), and anything unexpected. Every one is
 * an {@code application/problem+json} body built by {@link ProblemBodies}.
 */
@RestControllerAdvice
class ProblemAdvice extends ResponseEntityExceptionHandler {

    private static final System.Logger LOG = System.getLogger(ProblemAdvice.class.getName());
    private static final Pattern QUOTED = Pattern.compile("\"([^\"]*)\"");
    private static final Pattern NUMBER = Pattern.compile("\\((-?[0-9][0-9.eE+-]*)\\)");

    @ExceptionHandler(ProblemException.class)
    ResponseEntity<Object> problem(ProblemException e, HttpServletRequest request) {
        if (e.problem() == Problem.SERVICE_BUSY) {
            HttpHeaders headers = new HttpHeaders();
            headers.set(HttpHeaders.RETRY_AFTER, String.valueOf(e.properties().get("retryAfterSeconds")));
            return ProblemBodies.response(e.problem(), e.detail(), e.field(), e.properties(), headers, request);
        }
        if (e.problem().status() >= 500) {
            LOG.log(System.Logger.Level.ERROR, e.getMessage(), e);
        }
        return ProblemBodies.response(e.problem(), e.detail(), e.field(), e.properties(), null, request);
    }

    @ExceptionHandler(AuthenticationException.class)
    ResponseEntity<Object> unauthenticated(AuthenticationException e, HttpServletRequest request) {
        HttpHeaders headers = new HttpHeaders();
        // Scripts get the Basic challenge; the dashboard's fetch calls (X-Requested-With) do not,
        // so the browser shows the dashboard's sign-in form instead of its own pop-up.
        if (request.getHeader("X-Requested-With") == null) {
            headers.set(HttpHeaders.WWW_AUTHENTICATE, "Basic realm=\"blockwork\"");
        }
        String detail = request.getHeader(HttpHeaders.AUTHORIZATION) == null
                ? "this request needs HTTP Basic credentials" : "the credentials were not accepted";
        return ProblemBodies.response(Problem.UNAUTHENTICATED, detail, null, Map.of(), headers, request);
    }

    @ExceptionHandler(AccessDeniedException.class)
    ResponseEntity<Object> forbidden(AccessDeniedException e, HttpServletRequest request) {
        String user = request.getUserPrincipal() == null ? "this user" : "user " + request.getUserPrincipal().getName();
        return ProblemBodies.response(Problem.FORBIDDEN, user + " may not " + request.getMethod() + " "
                + request.getRequestURI(), null, Map.of(), null, request);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> unexpected(Exception e, HttpServletRequest request) {
        LOG.log(System.Logger.Level.ERROR, "unexpected failure of " + request.getMethod() + " " + request.getRequestURI(), e);
        return ProblemBodies.response(Problem.INTERNAL_ERROR, "an unexpected error occurred; see the server log",
                null, Map.of(), null, request);
    }

    /** Spring MVC's exceptions, after {@link ResponseEntityExceptionHandler} chose their status and headers. */
    @Override
    protected ResponseEntity<Object> handleExceptionInternal(Exception e, Object body, HttpHeaders headers,
                                                             HttpStatusCode status, WebRequest webRequest) {
        HttpServletRequest request = ((ServletWebRequest) webRequest).getRequest();
        if (e instanceof NoResourceFoundException || unknownApiPath(e, request)) {
            return ProblemBodies.response(Problem.NOT_FOUND, "no such path: " + ProblemBodies.shortened(
                    request.getRequestURI()), null, Map.of(), null, request);
        }
        return switch (e) {
            case MethodArgumentNotValidException m -> invalid(fieldErrors(m), headers, request);
            case HandlerMethodValidationException h -> invalid(parameterErrors(h), headers, request);
            case MissingServletRequestParameterException m -> ProblemBodies.response(Problem.VALIDATION_FAILED,
                    "query parameter '" + m.getParameterName() + "' is required", m.getParameterName(), Map.of(),
                    headers, request);
            case TypeMismatchException t -> ProblemBodies.response(Problem.VALIDATION_FAILED,
                    Quoted.of(String.valueOf(t.getValue())) + " is not a valid " + typeName(t) + " for '" + t.getPropertyName() + "'",
                    t.getPropertyName(), Map.of(), headers, request);
            case HttpMessageNotReadableException n -> unreadable(n, headers, request);
            case HttpMediaTypeNotSupportedException u -> ProblemBodies.response(Problem.UNSUPPORTED_MEDIA_TYPE,
                    "Content-Type " + u.getContentType() + " is not accepted here; use "
                            + u.getSupportedMediaTypes(), null, Map.of(), headers, request);
            default -> {
                Problem problem = ProblemBodies.forStatus(status.value());
                if (problem.status() >= 500) {
                    LOG.log(System.Logger.Level.ERROR, "request failed", e);
                }
                yield ProblemBodies.response(problem, detailOf(e, problem), null, Map.of(), headers, request);
            }
        };
    }

    /**
     * A method other than GET on a path no controller maps reaches the dashboard's static files,
     * which answer 405 (they take only GET and HEAD); under /api/ no static file lives, so the
     * path is simply unknown.
     */
    private static boolean unknownApiPath(Exception e, HttpServletRequest request) {
        return e instanceof HttpRequestMethodNotSupportedException && request.getRequestURI().startsWith("/api/")
                && request.getAttribute(HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE) instanceof ResourceHttpRequestHandler;
    }

    private static String detailOf(Exception e, Problem problem) {
        if (problem.status() >= 500) {
            return "an unexpected error occurred; see the server log";
        }
        if (e instanceof ErrorResponse r && r.getBody().getDetail() != null) {
            return r.getBody().getDetail();
        }
        return Objects.requireNonNullElse(e.getMessage(), problem.title());
    }

    private static String typeName(TypeMismatchException t) {
        Class<?> type = t.getRequiredType();
        if (type == null) {
            return "value";
        }
        return type == long.class || type == int.class || Number.class.isAssignableFrom(type)
                ? "integer" : type.getSimpleName().toLowerCase(Locale.ROOT);
    }

    /** A body Jackson could not read: broken JSON, or JSON whose values do not fit (a bad size, an unknown field). */
    private ResponseEntity<Object> unreadable(HttpMessageNotReadableException n, HttpHeaders headers,
                                              HttpServletRequest request) {
        for (Throwable cause = n.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof BodySizeLimit.TooLarge tooLarge) {
                return ProblemBodies.response(Problem.PAYLOAD_TOO_LARGE, tooLarge.getMessage(), null,
                        Map.of("limitBytes", BodySizeLimit.LIMIT_BYTES), headers, request);
            }
        }
        if (n.getCause() instanceof DatabindException d && !d.getPath().isEmpty()
                && (d instanceof MismatchedInputException || d.getCause() instanceof IllegalArgumentException)) {
            String field = jsonPath(d);
            String detail = switch (d) {
                case UnrecognizedPropertyException u -> "unknown field '" + u.getPropertyName() + "'";
                default -> field + ": " + (d.getCause() instanceof IllegalArgumentException iae
                        ? iae.getMessage() : "wrong type of value");
            };
            return ProblemBodies.response(Problem.VALIDATION_FAILED, detail, field, Map.of(), headers, request);
        }
        // A number too large for its field ("queueDepth": 99999999999): the parser refuses it, but
        // the JSON is fine and the field is known.
        if (n.getCause() instanceof InputCoercionException c && !c.getPath().isEmpty()) {
            String field = jsonPath(c);
            return ProblemBodies.response(Problem.VALIDATION_FAILED, field + ": " + outOfRange(c), field, Map.of(),
                    headers, request);
        }
        // Valid JSON of the wrong shape ([], "x", 42) where an object was expected; Jackson's own
        // message names the server's class. (Its parser is closed by now, so the message tells.)
        if (n.getCause() instanceof MismatchedInputException m && m.getPath().isEmpty()
                && m.getOriginalMessage() != null && m.getOriginalMessage().startsWith("Cannot ")) {
            return ProblemBodies.response(Problem.VALIDATION_FAILED, "the body must be a JSON object", null,
                    Map.of(), headers, request);
        }
        // A number literal longer than StreamReadConstraints allows (1,000 digits): a bad value, not
        // broken JSON. The parser stops at the literal and keeps no path to it, so no field is named.
        if (n.getCause() instanceof StreamConstraintsException c && c.getOriginalMessage() != null
                && c.getOriginalMessage().startsWith("Number value length")) {
            return ProblemBodies.response(Problem.VALIDATION_FAILED, "a number in the body has more digits than any "
                    + "value takes (at most " + StreamReadConstraints.DEFAULT_MAX_NUM_LEN + ")", null, Map.of(), headers,
                    request);
        }
        if (n.getCause() instanceof StreamReadException s && s.getOriginalMessage() != null
                && s.getOriginalMessage().startsWith("Duplicate")) {
            String field = fieldAt(s);
            return ProblemBodies.response(Problem.VALIDATION_FAILED, "'" + field + "' is given more than once",
                    field, Map.of(), headers, request);
        }
        String detail = n.getCause() instanceof JacksonException j ? "the body is not valid JSON: " + j.getOriginalMessage()
                : "the request body is missing or unreadable";
        return ProblemBodies.response(Problem.MALFORMED_JSON, detail, null, Map.of(), headers, request);
    }

    /** The key the parser stopped at (given twice, or with a value it refused), as a path ("strategies.flush"). */
    private static String fieldAt(StreamReadException s) {
        if (s.processor() instanceof JsonParser p && p.streamReadContext() != null) {
            StringBuilder path = new StringBuilder();
            for (String part : p.streamReadContext().pathAsPointer().toString().split("/")) {
                if (part.isEmpty()) {
                    continue;
                }
                String key = part.replace("~1", "/").replace("~0", "~");
                path.append(key.chars().allMatch(Character::isDigit) ? "[" + key + "]"
                        : (path.isEmpty() ? "" : ".") + key);
            }
            if (!path.isEmpty()) {
                return path.toString();
            }
        }
        Matcher m = QUOTED.matcher(Objects.requireNonNullElse(s.getOriginalMessage(), ""));
        return m.find() ? m.group(1) : "";
    }

    /** "99999999999 is out of range (-2147483648..2147483647)", from Jackson's "Numeric value (…) out of range of `int`". */
    private static String outOfRange(InputCoercionException c) {
        Matcher number = NUMBER.matcher(Objects.requireNonNullElse(c.getOriginalMessage(), ""));
        String value = number.find() ? number.group(1) : "the number";
        Class<?> type = c.getTargetType();
        String range = type == int.class || type == Integer.class ? Integer.MIN_VALUE + ".." + Integer.MAX_VALUE
                : type == long.class || type == Long.class ? Long.MIN_VALUE + ".." + Long.MAX_VALUE : null;
        return value + " is out of range" + (range == null ? "" : " (" + range + ")");
    }

    private static String jsonPath(JacksonException d) {
        StringBuilder path = new StringBuilder();
        for (JacksonException.Reference r : d.getPath()) {
            if (r.getPropertyName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(r.getPropertyName());
            } else if (r.getIndex() >= 0) {
                path.append('[').append(r.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    private ResponseEntity<Object> invalid(List<FieldProblem> errors, HttpHeaders headers, HttpServletRequest request) {
        String detail = errors.stream().map(f -> f.field() + " " + f.detail()).reduce((a, b) -> a + "; " + b)
                .orElse("invalid request");
        String field = errors.size() == 1 ? errors.getFirst().field() : null;
        return ProblemBodies.response(Problem.VALIDATION_FAILED, detail, field, Map.of("errors", errors), headers,
                request);
    }

    private static List<FieldProblem> fieldErrors(MethodArgumentNotValidException m) {
        List<FieldProblem> errors = new ArrayList<>();
        for (FieldError f : m.getBindingResult().getFieldErrors()) {
            errors.add(new FieldProblem(f.getField(), f.getDefaultMessage()));
        }
        m.getBindingResult().getGlobalErrors().forEach(g -> errors.add(new FieldProblem("", g.getDefaultMessage())));
        return errors;
    }

    private static List<FieldProblem> parameterErrors(HandlerMethodValidationException h) {
        List<FieldProblem> errors = new ArrayList<>();
        h.getParameterValidationResults().forEach(r -> r.getResolvableErrors().forEach(err ->
                errors.add(new FieldProblem(r.getMethodParameter().getParameterName(), err.getDefaultMessage()))));
        return errors;
    }

    /** One entry of a validation problem's {@code errors}. */
    record FieldProblem(String field, String detail) {}
}
