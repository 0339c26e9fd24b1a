package io.blockwork.dm.web;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.blockwork.dm.app.TableInput;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A table in a JSON body: {@code dmsetup} text ({@code "0 2048 linear d1 0"}), or a list of target
 * objects ({@code [{"start":0,"length":2048,"target":"linear","args":"d1 0"}]}; {@code args} one
 * string or one per argument, {@code type} accepted for {@code target}). Only the JSON shape is
 * checked here; what the values mean is checked, line by line, when the table is built.
 */
record TableBody(TableInput input) {

    private static final Set<String> FIELDS = Set.of("start", "length", "target", "type", "args");

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static TableBody fromJson(Object value) {
        return switch (value) {
            case String text -> new TableBody(new TableInput.Text(text));
            case List<?> list -> new TableBody(new TableInput.Targets(targets(list)));
            case null, default -> throw new IllegalArgumentException(
                    "a table is dmsetup text or a list of target objects {start, length, target, args}");
        };
    }

    private static List<TableInput.Target> targets(List<?> list) {
        List<TableInput.Target> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("target " + (i + 1) + " is not an object {start, length, target, args}");
            }
            for (Object key : m.keySet()) {
                if (!FIELDS.contains(key)) {
                    throw new IllegalArgumentException("unknown field '" + key + "' in target " + (i + 1)
                            + " (start, length, target, args)");
                }
            }
            Object target = m.containsKey("target") ? m.get("target") : m.get("type");
            out.add(new TableInput.Target(text(m.get("start")), text(m.get("length")), text(target), args(m.get("args"))));
        }
        return out;
    }

    private static List<String> args(Object value) {
        return switch (value) {
            case null -> List.of();
            case List<?> list -> list.stream().map(TableBody::text).map(s -> s == null ? "null" : s).toList();
            default -> List.of(text(value));
        };
    }

    /** A JSON value as table text would have it (numbers as digits); null stays null, to be reported as missing. */
    private static String text(Object value) {
        return value == null ? null : value.toString();
    }
}
