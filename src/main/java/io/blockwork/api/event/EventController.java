package io.blockwork.api.event;

import io.blockwork.engine.block.Labelled;
import io.blockwork.service.event.Event;
import io.blockwork.service.event.EventFilter;
import io.blockwork.service.event.EventHub;
import io.blockwork.service.event.EventKind;
import io.blockwork.service.event.EventProperties;
import io.blockwork.service.event.StreamItem;
import io.blockwork.service.event.Subscription;
import io.blockwork.service.problem.ProblemException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * The event stream ({@code text/event-stream}) and, for clients that poll, the same events as a
 * JSON list ({@code /recent}). The stream is written by the request's own (virtual) thread,
 * which waits on its {@link Subscription}'s queue: a consumer that stops reading blocks only that thread, and the
 * hub cuts it off once its queue is full.
 */
@RestController
@RequestMapping("/api/v1/events")
@Tag(name = "Events", description = "What happens, live: objects created, changed and deleted, health changes with "
        + "reasons, member failures, sync/recovery/check and merge progress, snapshot fill, NBD clients, workloads")
class EventController {

    static final String STREAM_EXAMPLE = """
            : connected
            retry: 3000

            id: 1764571200000042
            event: failed
            data: {"id":1764571200000042,"time":"2026-12-01T06:40:00.120Z","type":"failed","kind":"member",\
            "object":"d2","parent":"md0","state":"faulty","reason":"failed by request","data":{"byRequest":true}}

            id: 1764571200000043
            event: state
            data: {"id":1764571200000043,"time":"2026-12-01T06:40:00.121Z","type":"state","kind":"array",\
            "object":"md0","state":"degraded","reason":"1 of 2 members in sync; d2 faulty (failed by request)","data":{}}

            id: 1764571200000051
            event: progress
            data: {"id":1764571200000051,"time":"2026-12-01T06:40:02.004Z","type":"progress","kind":"array",\
            "object":"md0","data":{"action":"recover","target":"d3","doneBytes":33554432,"totalBytes":134217728,\
            "percent":25.0,"phase":"running","speedBytesPerSecond":16777216,"etaSeconds":6}}

            : heartbeat

            """;

    private final EventHub hub;
    private final Duration heartbeat;
    private final JsonMapper json;

    EventController(EventHub hub, EventProperties properties, JsonMapper json) {
        this.hub = hub;
        this.heartbeat = properties.heartbeat();
        this.json = json;
    }

    @GetMapping(produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    @Operation(summary = "Follow events as they happen (Server-Sent Events)",
            description = "Each event has an increasing `id`; reconnect with the `Last-Event-ID` header (browsers' "
                    + "EventSource does) to receive exactly the events missed, kept in a bounded ring. If they are no "
                    + "longer kept (or the id is from an earlier run) the stream starts with a `reset` event: reload the "
                    + "state, then follow. A comment line (`: heartbeat`) is sent when nothing happened for a while. "
                    + "A consumer that falls too far behind is cut off with a final `dropped` event; when the service "
                    + "stops, the stream ends with `shutdown`. The same events as a JSON list: GET /api/v1/events/recent. "
                    + "Event types: created, changed, deleted, state, failed, "
                    + "progress, fill, ended, connected, disconnected. Try `curl -N -u viewer:… …/api/v1/events`.")
    @ApiResponse(responseCode = "200", description = "The stream; it stays open",
            content = @Content(mediaType = MediaType.TEXT_EVENT_STREAM_VALUE, schema = @Schema(type = "string"),
                    examples = @ExampleObject(name = "a member fails and a spare is rebuilt", value = STREAM_EXAMPLE)))
    void stream(@Parameter(description = "Comma-separated kinds to keep: disk, array, member, dm, pool, volume, "
                        + "snapshot, export, workload, experiment", example = "array,member")
                @RequestParam(required = false) String kinds,
                @Parameter(description = "Keep only events about this object, or whose parent it is (an array and "
                        + "its members, a volume and its snapshots, a device and its workloads)", example = "md0")
                @RequestParam(required = false) String object,
                @Parameter(description = "Resume after this event id (what EventSource sends on reconnect)")
                @RequestHeader(value = "Last-Event-ID", required = false) String lastEventId,
                HttpServletResponse response) throws IOException {
        EventFilter filter = filter(kinds, object);
        Long after = lastEventId(lastEventId);
        response.setContentType(MediaType.TEXT_EVENT_STREAM_VALUE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Accel-Buffering", "no"); // nginx: do not buffer the stream
        OutputStream out = response.getOutputStream();
        try (Subscription s = hub.subscribe(filter, after)) {
            write(out, ": connected\nretry: 3000\n\n");
            while (true) {
                StreamItem item = s.next(heartbeat);
                write(out, item == null ? ": heartbeat\n\n" : frame(item));
                if (item != null && item.last()) {
                    return;
                }
            }
        } catch (IOException clientGone) {
            // the consumer closed the connection: nothing more to do
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @GetMapping(path = "/recent", produces = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "List recent events",
            description = "The kept events, oldest first: all of them after `after` (up to `limit`), or the newest "
                    + "`limit`. For clients that poll instead of following the stream; same filters.")
    List<Event> list(@RequestParam(required = false) String kinds, @RequestParam(required = false) String object,
                     @Parameter(description = "Only events with a larger id") @RequestParam(required = false) Long after,
                     @Parameter(description = "At most this many (1..1000, default 100)")
                     @RequestParam(defaultValue = "100") int limit) {
        if (limit < 1 || limit > 1000) {
            throw ProblemException.invalid("limit", "limit must be 1..1000, not " + limit);
        }
        EventFilter filter = filter(kinds, object);
        if (after == null) {
            return hub.latest(filter, limit);
        }
        List<Event> since = hub.since(after, filter);
        return since.size() <= limit ? since : since.subList(0, limit);
    }

    private static EventFilter filter(String kinds, String object) {
        Set<String> k = Set.of();
        if (kinds != null && !kinds.isBlank()) {
            k = Arrays.stream(kinds.split(",")).map(String::strip).filter(x -> !x.isEmpty())
                    .collect(Collectors.toUnmodifiableSet());
            for (String label : k) {
                if (Labelled.find(EventKind.class, label).isEmpty()) {
                    throw ProblemException.invalid("kinds", Labelled.unknown(EventKind.class, label, "kind"));
                }
            }
        }
        return new EventFilter(k, object == null || object.isBlank() ? null : object);
    }

    private static Long lastEventId(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        try {
            return Long.parseLong(header.strip());
        } catch (NumberFormatException e) {
            throw ProblemException.invalid("Last-Event-ID", "Last-Event-ID must be an event id (a number), not '"
                    + header + "'");
        }
    }

    private String frame(StreamItem item) {
        return switch (item) {
            case StreamItem.Delivered d -> "id: " + d.event().id() + "\nevent: " + d.event().type() + "\ndata: "
                    + json.writeValueAsString(d.event()) + "\n\n";
            case StreamItem.Reset r -> "id: " + r.lastEventId() + "\nevent: reset\ndata: "
                    + json.writeValueAsString(control("reset", r.reason(), r.lastEventId())) + "\n\n";
            case StreamItem.Dropped d -> "event: dropped\ndata: " + json.writeValueAsString(control("dropped", d.reason(), null))
                    + "\n\n";
            case StreamItem.Ended e -> "event: shutdown\ndata: "
                    + json.writeValueAsString(control("shutdown", e.reason(), null)) + "\n\n";
        };
    }

    private static Map<String, Object> control(String type, String reason, Long lastEventId) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        m.put("reason", reason);
        if (lastEventId != null) {
            m.put("lastEventId", lastEventId);
        }
        return m;
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
