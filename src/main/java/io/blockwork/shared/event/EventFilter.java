package io.blockwork.shared.event;

import java.util.Set;

/**
 * Which events a consumer wants.
 *
 * @param kinds kind labels to keep; empty for every kind
 * @param object keep only events about this object or whose parent it is; null for all
 */
public record EventFilter(Set<String> kinds, String object) {

    public static final EventFilter ALL = new EventFilter(Set.of(), null);

    public EventFilter {
        kinds = Set.copyOf(kinds);
    }

    public boolean matches(Event e) {
        return (kinds.isEmpty() || kinds.contains(e.kind())) && (object == null || e.concerns(object));
    }
}
