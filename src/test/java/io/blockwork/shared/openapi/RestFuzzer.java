package io.blockwork.shared.openapi;

import io.blockwork.e2e.RunningService;
import io.blockwork.support.TempDataDir;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/**
 * The REST fuzzer of issue 13 (acceptance 4): requests generated from the OpenAPI document for
 * every operation, mostly wrong ({@link FuzzRequests}), sent as the admin over real HTTP to a real
 * service, so the servlet container's own refusals are covered too. It records as a violation a
 * 5xx (but for 502 {@code remote-unavailable}, a refusal about an nbd disk's server), a refusal that is not a problem+json body, a refusal that changed the state
 * ({@link FuzzFixture#state}, taken after every refusal and compared with the state before it),
 * and a request with no answer. After a request that was accepted and changed something, the
 * fixture is put back. {@link RestFuzzTest} runs it against the service;
 * {@link RestFuzzRejectsBreakageTest} against one broken on purpose.
 */
final class RestFuzzer {

    /** What a run saw. */
    record Result(long seed, int operations, int sent, int accepted, int restored, TreeMap<Integer, Integer> statuses,
                  TreeMap<String, int[]> byOperation, List<String> violations, List<String> whyPutBack,
                  List<String> slowest, Duration took, long[] nanos) {

        long fiveXx() {
            return statuses.entrySet().stream().filter(e -> e.getKey() >= 500).mapToLong(e -> e.getValue()).sum();
        }

        String summary() {
            return "REST fuzz " + Instant.now() + ": " + sent + " requests over " + operations
                    + " operations (seed " + seed + "), " + accepted + " accepted changes (" + restored
                    + " put back), statuses " + statuses + ", " + fiveXx() + " 5xx, " + violations.size()
                    + " violations, " + took.toSeconds() + " s (" + nanos[0] / 1_000_000_000 + " s in requests, "
                    + nanos[1] / 1_000_000_000 + " s checking refusals, " + nanos[2] / 1_000_000_000
                    + " s putting the fixture back)";
        }

        /** The summary, requests by operation and status class, the violations and the first changes put back. */
        void write(Path file) throws IOException {
            StringBuilder table = new StringBuilder(summary()).append("\n\noperation: 2xx 4xx 5xx\n");
            byOperation.forEach((op, c) -> table.append(op).append(": ").append(c[0]).append(' ').append(c[1])
                    .append(' ').append(c[2]).append('\n'));
            Files.createDirectories(file.getParent());
            Files.writeString(file, table + "\nviolations:\n" + String.join("\n\n", violations)
                    + "\n\nthe first changes put back:\n" + String.join("\n\n", whyPutBack)
                    + "\n\nthe slowest requests (ms, after the request before them):\n" + String.join("\n", slowest) + "\n");
        }
    }

    private RestFuzzer() {}

    /**
     * Sends at least {@code requests} requests (the same number to each operation) with the
     * sequence {@code seed} chooses, to a service started on a fresh data directory with
     * {@code extraSources} added to its context.
     */
    static Result run(long seed, int requests, Class<?>... extraSources) throws Exception {
        Random random = new Random(seed);
        ApiOperations api = ApiOperations.load();
        List<ApiOperations.Operation> operations = api.all();
        int perOperation = (requests + operations.size() - 1) / operations.size();
        List<String> violations = new ArrayList<>();
        TreeMap<Integer, Integer> statuses = new TreeMap<>();
        TreeMap<String, int[]> byOperation = new TreeMap<>();
        Instant started = Instant.now();
        int sent = 0;
        int accepted = 0;
        int restored = 0;
        List<String> whyPutBack = new ArrayList<>();
        long[] nanos = new long[3]; // in requests, in checking refusals, in putting the fixture back
        TreeMap<Long, String> slowest = new TreeMap<>();
        String previous = "(none)";

        Class<?>[] sources = new Class<?>[extraSources.length + 1];
        sources[0] = CheapPasswordHashing.class;
        System.arraycopy(extraSources, 0, sources, 1, extraSources.length);
        Path dataDir = FastDataDir.create();
        try (RunningService service = RunningService.start(dataDir, sources);
             HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                     .connectTimeout(Duration.ofSeconds(10)).build()) {
            FuzzFixture fixture = new FuzzFixture(service);
            fixture.create();
            FuzzRequests generator = new FuzzRequests(api, fixture, random);
            String base = service.client().baseUrl();
            String auth = "Basic " + Base64.getEncoder().encodeToString(("admin:" + TempDataDir.ADMIN_PASSWORD)
                    .getBytes(StandardCharsets.UTF_8));
            String before = fixture.state();
            fuzzing:
            // rounds until enough requests went out (a URI the client refuses to send does not count),
            // with a bound in case the generator only made unsendable ones
            for (int round = 0; sent < requests && round < 2 * perOperation; round++) {
                for (ApiOperations.Operation op : operations) {
                    FuzzRequests.FuzzRequest r = round % 20 == 19 ? generator.otherMethod(op) : generator.next(op);
                    Answer response;
                    long t0 = System.nanoTime();
                    try {
                        response = Answer.of(http.send(request(base, auth, r), HttpResponse.BodyHandlers.ofInputStream()));
                    } catch (IOException e) {
                        violations.add(r + ": no answer (" + e + ") after " + previous);
                        previous = r.toString();
                        continue;
                    } catch (IllegalArgumentException e) {
                        continue; // a URI the client itself refuses to send
                    }
                    long t1 = System.nanoTime();
                    nanos[0] += t1 - t0;
                    slowest.put((t1 - t0) / 1_000_000 * 100_000 + sent % 100_000, r + " after " + previous);
                    if (slowest.size() > 5) {
                        slowest.pollFirstEntry();
                    }
                    previous = r.toString();
                    sent++;
                    int status = response.statusCode();
                    statuses.merge(status, 1, Integer::sum);
                    byOperation.computeIfAbsent(op.toString(), k -> new int[3])[status >= 500 ? 2 : status >= 400 ? 1 : 0]++;
                    if (status >= 500 && !response.isRemoteUnavailable()) {
                        violations.add(r + ": " + status + " " + response.body());
                    } else if (status >= 400) { // 502 remote-unavailable is about another server: a refusal
                        String type = response.type();
                        if (!type.startsWith("application/problem+json")) {
                            violations.add(r + ": " + status + " answered as " + type + ", not problem+json");
                        }
                        String after = fixture.state();
                        if (!after.equals(before)) {
                            violations.add(r + ": refused with " + status + " but changed the state:\n"
                                    + difference(before, after));
                            before = after;
                        }
                        nanos[1] += System.nanoTime() - t1;
                    } else if (!r.method().equals("GET")) {
                        accepted++;
                        String after = fixture.state();
                        if (!fixture.isPristine(after)) {
                            if (whyPutBack.size() < 10) {
                                whyPutBack.add(r + ":\n" + difference(fixture.pristine(), after));
                            }
                            try {
                                fixture.restore();
                            } catch (AssertionError e) {
                                violations.add(r + ": accepted, and then the fixture could not be put back: "
                                        + e.getMessage());
                                break fuzzing;
                            }
                            restored++;
                            after = fixture.pristine();
                        }
                        before = after;
                        nanos[2] += System.nanoTime() - t1;
                    }
                    if (sent % 1000 == 0) {
                        System.out.println("REST fuzz: " + sent + " requests, " + violations.size() + " violations");
                    }
                }
            }
        } finally {
            FastDataDir.delete(dataDir);
        }
        List<String> slow = slowest.descendingMap().entrySet().stream()
                .map(e -> e.getKey() / 100_000 + " " + e.getValue()).toList();
        return new Result(seed, operations.size(), sent, accepted, restored, statuses, byOperation, violations,
                whyPutBack, slow, Duration.between(started, Instant.now()), nanos);
    }

    /**
     * An answer's status, media type and body. An event stream stays open by design: its status
     * and type are what is checked, and the connection is closed instead of read to the end.
     */
    private record Answer(int statusCode, String type, String body) {

        static Answer of(HttpResponse<InputStream> r) throws IOException {
            String type = r.headers().firstValue("Content-Type").orElse("");
            try (InputStream in = r.body()) {
                String body = type.startsWith("text/event-stream") ? ""
                        : new String(in.readAllBytes(), StandardCharsets.UTF_8);
                return new Answer(r.statusCode(), type, body);
            }
        }

        /** 502 {@code remote-unavailable}: an nbd disk's server did not answer (the API's documented refusal). */
        boolean isRemoteUnavailable() {
            return statusCode == 502 && body.contains("\"code\":\"remote-unavailable\"");
        }
    }

    private static HttpRequest request(String base, String auth, FuzzRequests.FuzzRequest r) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + r.path() + (r.query().isEmpty() ? ""
                        : "?" + r.query())))
                .timeout(Duration.ofSeconds(30)).header("Authorization", auth);
        if (r.contentType() != null) {
            b.header("Content-Type", r.contentType());
        }
        HttpRequest.BodyPublisher body = r.body() == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(r.body());
        return b.method(r.method(), body).build();
    }

    /** The first lines where two states differ. */
    private static String difference(String before, String after) {
        String[] a = before.split("\n");
        String[] b = after.split("\n");
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            String x = i < a.length ? a[i] : "";
            String y = i < b.length ? b[i] : "";
            if (!x.equals(y)) {
                return "  before: " + x + "\n  after:  " + y;
            }
        }
        return "";
    }
}
