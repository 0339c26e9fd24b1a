package io.blockwork.shared.event;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One thing that happened, as every event consumer sees it (SSE data, the JSON list).
 *
 * @param id increasing; unique across restarts (numbering starts from the boot time), so a
 *           {@code Last-Event-ID} from an earlier run is recognised as too old
 * @param type what happened ({@link EventType} label)
 * @param kind what it happened to ({@link EventKind} label)
 * @param object the object's name (an array member's device name)
 * @param parent the array of a member, the pool of a volume, the volume of a snapshot; else null
 * @param state the object's health after the event, for {@code state} and {@code failed} events
 *              ({@code ok}, {@code degraded}, {@code recovering}, {@code failed}, …); else null
 * @param reason why, in words; null when there is nothing to explain
 * @param data event-specific figures (progress: done, total, percent, speed, ETA; changed: fields)
 */
public record Event(long id, Instant time, String type, String kind, String object, String parent, String state,
                    String reason, Map<String, Object> data) {

    /** An event before the hub numbers it. */
    public record Draft(EventType type, EventKind kind, String object, String parent, String state, String reason,
                        Map<String, Object> data) {
        public Draft {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(object, "object");
            data = data == null ? Map.of() : data;
        }

        public static Draft of(EventType type, EventKind kind, String object) {
            return new Draft(type, kind, object, null, null, null, Map.of());
        }

        public Draft parent(String p) {
            return new Draft(type, kind, object, p, state, reason, data);
        }

        public Draft state(String s, String why) {
            return new Draft(type, kind, object, parent, s, why, data);
        }

        public Draft data(Map<String, Object> d) {
            return new Draft(type, kind, object, parent, state, reason, d);
        }
    }

    /** True if this event is about {@code name}, directly or as its parent. */
    public boolean concerns(String name) {
        return name.equals(object) || name.equals(parent);
    }
}
