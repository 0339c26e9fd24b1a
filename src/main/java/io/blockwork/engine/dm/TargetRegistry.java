package io.blockwork.engine.dm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The target types a table may name. Immutable; the standard set is listed explicitly in one
 * place ({@code io.blockwork.engine.dm.targets.Targets}), and tests or later features extend a
 * copy with {@link #with}.
 */
public final class TargetRegistry {

    private final Map<String, TargetType> types;

    private TargetRegistry(Map<String, TargetType> types) {
        this.types = Collections.unmodifiableMap(types);
    }

    public static TargetRegistry of(TargetType... types) {
        return new TargetRegistry(new LinkedHashMap<>()).with(types);
    }

    /** A registry with these types added; a name registered twice is a programming error. */
    public TargetRegistry with(TargetType... more) {
        Map<String, TargetType> m = new LinkedHashMap<>(types);
        for (TargetType t : more) {
            if (m.putIfAbsent(t.name(), t) != null) {
                throw new IllegalArgumentException("target type '" + t.name() + "' is already registered");
            }
        }
        return new TargetRegistry(m);
    }

    /** The type called {@code name}, or null. */
    public TargetType find(String name) {
        return types.get(name);
    }

    /** Every type, in registration order ({@code dmsetup targets}). */
    public List<TargetType> types() {
        return List.copyOf(types.values());
    }

    public List<String> names() {
        return new ArrayList<>(types.keySet());
    }
}
