package io.blockwork.shared.problem;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How an existing object differs from what a create asked for, field by field: the one comparison
 * behind the scripting contract (docs/api.md), where an identical repeat of a create confirms the
 * object and a differing one is refused naming the fields. Each kind's create request lists its
 * fields with the value asked for (units already read: "64MiB" is 67108864) and the object's; a
 * field the request left to the server (no default of its own) is passed as null and not compared.
 */
public final class Differences {

    private final String kind;
    private final String name;
    private final List<String> fields = new ArrayList<>();
    private final List<String> details = new ArrayList<>();

    private Differences(String kind, String name) {
        this.kind = kind;
        this.name = name;
    }

    /** Starts the comparison of the {@code kind} (as the API names it: "disk", "pool") called {@code name}. */
    public static Differences of(String kind, String name) {
        return new Differences(kind, name);
    }

    /**
     * Compares request field {@code field}: {@code asked} (null: not asked for, not compared) with
     * the existing object's {@code is}. Whole numbers compare by value, whatever their type.
     */
    public Differences field(String field, Object asked, Object is) {
        if (asked != null && !Objects.equals(normal(asked), normal(is))) {
            fields.add(field);
            details.add(field + " is " + shown(is) + ", not " + shown(asked));
        }
        return this;
    }

    /** A size the create rounds up to whole {@code unit}s (extents, chunks): compared as rounded. */
    public Differences size(String field, Long askedBytes, long isBytes, long unit) {
        // not one conditional expression: Long and long would unbox a null askedBytes
        Long rounded = askedBytes == null || unit <= 0 ? askedBytes : Long.valueOf(Math.ceilDiv(askedBytes, unit) * unit);
        return field(field, rounded, isBytes);
    }

    /** The fields that differ, in the order compared; empty when the object is the one asked for. */
    public List<String> fields() {
        return List.copyOf(fields);
    }

    /**
     * Nothing to do when none differ; otherwise 409 name-taken at {@code name} (the name is what is
     * taken, as for any other holder of it) whose {@code differs} lists the fields.
     */
    public void requireNone() {
        if (!fields.isEmpty()) {
            throw new ProblemException(Problem.NAME_TAKEN, "the name '" + name + "' is taken: " + kind + " " + name
                    + " exists with other settings (" + String.join("; ", details) + "); change it with PATCH or "
                    + "delete it first")
                    .atField("name").with("takenBy", kind).with("differs", List.copyOf(fields));
        }
    }

    private static Object normal(Object v) {
        return v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
                ? ((Number) v).longValue() : v;
    }

    /** A value as the detail quotes it; long ones (a table) shortened. */
    private static String shown(Object v) {
        String text = v instanceof String s ? "'" + s + "'" : String.valueOf(v);
        return text.length() <= SHOWN_CHARS ? text : text.substring(0, SHOWN_CHARS) + "…";
    }

    private static final int SHOWN_CHARS = 120;
}
