package io.blockwork.shared.ensure;

import io.blockwork.shared.problem.Differences;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.net.URI;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.http.ResponseEntity;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * Create or confirm, the scripting contract of docs/api.md shared by every kind's POST and PUT:
 * when the object is there already and is what the request asks for, 200 with it as GET shows it
 * (nothing is changed, no management operation runs); when it is there with other settings, 409
 * name-taken whose {@code differs} names the fields; otherwise it is created, 201 with Location.
 * A create that loses a race to an identical one (name-taken after the first look) is answered
 * as a confirm too.
 *
 * @param get reads the object as GET does; not-found when there is none
 * @param compare the fields in which an existing object differs from the request
 * @param create creates it and answers the created body
 * @param shown the existing object as GET shows it
 */
public record Ensure<V, B>(Supplier<V> get, Function<V, Differences> compare, Supplier<B> create,
                           Function<V, B> shown) {

    /** The descriptions of the answers every create and PUT gives, for the OpenAPI document. */
    public static final String CREATED = "Created; Location names it";
    public static final String CONFIRMED = "The identical object is there already (a repeated create or PUT): "
            + "nothing was changed; the body is what GET shows and Location names it";
    public static final String DIFFERS = "name-taken: an object of this name is there with other settings (`differs` "
            + "names the fields, nothing was changed), or another kind of object has the name";
    public static final String PUT_SUMMARY = "Create or confirm: like POST, with the name in the path (the body's "
            + "must be the same). 201 when it creates the object, 200 when the identical one is there, 409 when one "
            + "with other settings is (it is never changed: use PATCH). See docs/api.md, scripting contract.";

    /** Creates the object, or confirms the identical one there; Location is {@code location} either way. */
    public ResponseEntity<B> answer(URI location) {
        Optional<V> existing = find();
        if (existing.isEmpty()) {
            try {
                return ResponseEntity.created(location).body(create.get());
            } catch (ProblemException e) {
                existing = e.problem() == Problem.NAME_TAKEN ? find() : Optional.empty();
                if (existing.isEmpty()) {
                    throw e;
                }
            }
        }
        compare.apply(existing.get()).requireNone();
        return ResponseEntity.ok().location(location).body(shown.apply(existing.get()));
    }

    /** A PUT's body names the object its path names (or, where it may, no name); 400 naming {@code field} otherwise. */
    public static void samePathName(String pathName, String bodyName, String field) {
        if (bodyName != null && !pathName.equals(bodyName)) {
            throw ProblemException.invalid(field, "the body's " + field + " '" + bodyName + "' is not the path's '"
                    + pathName + "'; a PUT names the object it creates or confirms in both");
        }
    }

    /**
     * Where the object named by {@code names} lives: {@code template}'s variables filled in order, each
     * percent-encoded, since a path segment may carry any character (the answer then says what is wrong
     * with the name, not 500 on the URI).
     */
    public static URI location(String template, Object... names) {
        return UriComponentsBuilder.fromPath(template).encode().buildAndExpand(names).toUri();
    }

    private Optional<V> find() {
        try {
            return Optional.of(get.get());
        } catch (ProblemException e) {
            if (e.problem() == Problem.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
