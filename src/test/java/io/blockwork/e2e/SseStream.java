package io.blockwork.e2e;

import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A reading consumer of {@code GET /api/v1/events}: a thread parses the stream into frames (id,
 * event, data) and comment lines as they arrive; the test takes them in order with a timeout.
 */
final class SseStream implements AutoCloseable {

    /** One SSE frame; {@code comment} frames carry the comment text in {@code data}. */
    record Frame(Long id, String event, String data) {
        boolean comment() {
            return "comment".equals(event);
        }

        /** A field of the data's JSON, e.g. "$.object". */
        <T> T json(String path) {
            return JsonPath.read(data, path);
        }

        /** The object an event is about; null for comments and stream control frames. */
        String object() {
            return comment() || !data.startsWith("{") || !data.contains("\"object\"") ? null : json("$.object");
        }

        String type() {
            return event;
        }

        @Override
        public String toString() {
            return event + " " + data;
        }
    }

    private final HttpClient http;
    private final LinkedBlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
    private final Stream<String> lines;
    private final Thread reader;
    final int status;

    private SseStream(HttpClient http, HttpResponse<Stream<String>> response) {
        this.http = http;
        this.status = response.statusCode();
        this.lines = response.body();
        this.reader = Thread.ofVirtual().start(this::read);
    }

    /** Opens {@code path} (with its query) with the given credentials and optional Last-Event-ID. */
    static SseStream open(String base, String path, String authorization, Long lastEventId)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Accept", "text/event-stream");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (lastEventId != null) {
            b.header("Last-Event-ID", Long.toString(lastEventId));
        }
        HttpClient client = HttpClient.newHttpClient();
        return new SseStream(client, client.send(b.build(), HttpResponse.BodyHandlers.ofLines()));
    }

    private void read() {
        Long id = null;
        String event = "message";
        StringBuilder data = new StringBuilder();
        try {
            for (String line : (Iterable<String>) lines::iterator) {
                if (line.isEmpty()) {
                    if (!data.isEmpty()) {
                        frames.add(new Frame(id, event, data.toString()));
                    }
                    id = null;
                    event = "message";
                    data.setLength(0);
                } else if (line.startsWith(":")) {
                    frames.add(new Frame(null, "comment", line.substring(1).strip()));
                } else if (line.startsWith("id: ")) {
                    id = Long.parseLong(line.substring(4));
                } else if (line.startsWith("event: ")) {
                    event = line.substring(7);
                } else if (line.startsWith("data: ")) {
                    data.append(line.substring(6));
                }
            }
        } catch (RuntimeException closed) {
            // the test closed the stream
        }
    }

    /** The next frame that is not a comment, waiting at most {@code max}; fails the test if none comes. */
    Frame next(Duration max) throws InterruptedException {
        return next(max, f -> !f.comment());
    }

    /** The next frame {@code wanted} accepts, skipping others, waiting at most {@code max} in all. */
    Frame next(Duration max, Predicate<Frame> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (true) {
            Frame f = frames.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (f == null) {
                throw new AssertionError("no matching event within " + max);
            }
            if (wanted.test(f)) {
                return f;
            }
        }
    }

    /** Frames {@code wanted} accepts until {@code last} accepts one (included), waiting at most {@code max} in all. */
    List<Frame> until(Duration max, Predicate<Frame> wanted, Predicate<Frame> last) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        List<Frame> out = new ArrayList<>();
        while (true) {
            Frame f = next(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())), wanted);
            out.add(f);
            if (last.test(f)) {
                return out;
            }
        }
    }

    /** Every frame received so far that is not a comment, without waiting. */
    List<Frame> drain() {
        List<Frame> out = new ArrayList<>();
        frames.drainTo(out);
        out.removeIf(Frame::comment);
        return out;
    }

    static Map<String, Object> data(Frame f) {
        return JsonPath.read(f.data(), "$.data");
    }

    @Override
    public void close() {
        lines.close();
        reader.interrupt();
        http.close();
    }
}
