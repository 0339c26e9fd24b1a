package io.blockwork.event.web;

import io.blockwork.engine.block.Labelled;
import io.blockwork.engine.block.Quoted;
import io.blockwork.shared.event.Event;
import io.blockwork.shared.event.EventFilter;
import io.blockwork.shared.event.EventHub;
import io.blockwork.shared.event.EventKind;
import io.blockwork.shared.event.EventProperties;
import io.blockwork.shared.event.StreamItem;
import io.blockwork.shared.event.Subscription;
import io.blockwork.shared.problem.ProblemException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter;
import tools.jackson.databind.json.JsonMapper;

/**
 * The event stream ({@code text/event-stream}) and, for clients that poll, the same events as a
 * JSON list ({@code /recent}). The stream is written by a virtual thread of its own, not by a
 * request thread: it waits on its {@link Subscription}'s queue for as long as the consumer stays,
 * and the request threads are a bounded pool (application.yml's {@code server.tomcat.threads}).
 * A consumer that stops reading blocks only that thread, and the hub cuts it off once its queue is
 * full.
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

    private static final MediaType STREAM_TYPE = new MediaType(MediaType.TEXT_EVENT_STREAM, StandardCharsets.UTF_8);
    private static final long NO_TIMEOUT = -1;
    private static final AtomicLong PUMPS = new AtomicLong();

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
    ResponseEntity<ResponseBodyEmitter> stream(@Parameter(description = "Comma-separated kinds to keep: disk, array, member, dm, pool, volume, "
                        + "snapshot, export, workload, experiment", example = "array,member")
                @RequestParam(required = false) String kinds,
                @Parameter(description = "Keep only events about this object, or whose parent it is (an array and "
                        + "its members, a volume and its snapshots, a device and its workloads)", example = "md0")
                @RequestParam(required = false) String object,
                @Parameter(description = "Resume after this event id (what EventSource sends on reconnect)")
                @RequestHeader(value = "Last-Event-ID", required = false) String lastEventId) {
        EventFilter filter = filter(kinds, object);
        Long after = lastEventId(lastEventId);
        // no timeout: the stream stays open as long as its consumer (heartbeats keep proxies from closing it)
        ResponseBodyEmitter emitter = new ResponseBodyEmitter(NO_TIMEOUT);
        Subscription s = hub.subscribe(filter, after);
        Thread.ofVirtual().name("events-", PUMPS.incrementAndGet()).start(() -> pump(s, emitter));
        return ResponseEntity.ok()
                .contentType(STREAM_TYPE)
                .cacheControl(CacheControl.noCache())
                .header("X-Accel-Buffering", "no") // nginx: do not buffer the stream
                .body(emitter);
    }

    /**
     * Copies the subscription to the stream until the consumer leaves (a write fails: at the latest
     * the next heartbeat finds out) or the hub ends it ({@code dropped}, {@code shutdown}). Each
     * frame goes out as the emitter sends it: a {@code StreamingResponseBody}'s stream ignores
     * flushes (Spring 7), so its frames would wait in the response buffer.
     */
    private void pump(Subscription s, ResponseBodyEmitter emitter) {
        try (s) {
            emitter.send(": connected\nretry: 3000\n\n", STREAM_TYPE);
            while (true) {
                StreamItem item = s.next(heartbeat);
                emitter.send(item == null ? ": heartbeat\n\n" : frame(item), STREAM_TYPE);
                if (item != null && item.last()) {
                    emitter.complete();
                    return;
                }
            }
        } catch (IOException | IllegalStateException clientGone) {
            // the consumer closed the connection (or the container ended the request): nothing more to do
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
            throw ProblemException.invalid("Last-Event-ID", "Last-Event-ID must be an event id (a number), not "
                    + Quoted.of(header));
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
}
