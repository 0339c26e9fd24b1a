package io.blockwork.api.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.e2e.RunningService;
import io.blockwork.support.TempDataDir;
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
import org.junit.jupiter.api.Test;

/**
 * Issue 13, acceptance 4 (REST): requests generated from the OpenAPI document for every
 * operation, mostly wrong ({@link FuzzRequests}), sent as the admin over real HTTP to the real
 * service, so the servlet container's own refusals are covered too. None may be answered with a
 * 5xx, every refusal is a problem+json body, and a refused request changes nothing
 * ({@link FuzzFixture#state}, taken after every refusal and compared with the state before it).
 * After a request that was accepted and changed something, the fixture is put back.
 *
 * <p>At least {@value #MIN_REQUESTS} requests per run; more with
 * {@code -Dblockwork.fuzz.requests=100000}, another sequence with {@code -Dblockwork.fuzz.seed=N}.
 */
class RestFuzzTest {

    static final int MIN_REQUESTS = 10_000;
    private static final int REQUESTS = Integer.getInteger("blockwork.fuzz.requests", MIN_REQUESTS);

    @Test
    void generatedRequestsNeverBreakTheServiceAndRefusalsChangeNothing() throws Exception {
        long seed = Long.getLong("blockwork.fuzz.seed", System.nanoTime());
        Random random = new Random(seed);
        ApiOperations api = ApiOperations.load();
        List<ApiOperations.Operation> operations = api.all();
        int perOperation = (REQUESTS + operations.size() - 1) / operations.size();
        List<String> violations = new ArrayList<>();
        TreeMap<Integer, Integer> statuses = new TreeMap<>();
        TreeMap<String, int[]> byOperation = new TreeMap<>();
        Instant started = Instant.now();
        int sent = 0;
        int accepted = 0;

        try (RunningService service = RunningService.start(TempDataDir.newDataDir());
             HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                     .connectTimeout(Duration.ofSeconds(10)).build()) {
            FuzzFixture fixture = new FuzzFixture(service);
            fixture.create();
            FuzzRequests requests = new FuzzRequests(api, fixture, random);
            String base = service.client().baseUrl();
            String auth = "Basic " + Base64.getEncoder().encodeToString(("admin:" + TempDataDir.ADMIN_PASSWORD)
                    .getBytes(StandardCharsets.UTF_8));
            String before = fixture.state();
            fuzzing:
            for (int round = 0; round < perOperation; round++) {
                for (ApiOperations.Operation op : operations) {
                    FuzzRequests.FuzzRequest r = round % 20 == 19 ? requests.otherMethod(op) : requests.next(op);
                    HttpResponse<String> response;
                    try {
                        response = http.send(request(base, auth, r), HttpResponse.BodyHandlers.ofString());
                    } catch (java.io.IOException e) {
                        violations.add(r + ": no answer (" + e + ")");
                        continue;
                    } catch (IllegalArgumentException e) {
                        continue; // a URI the client itself refuses to send
                    }
                    sent++;
                    int status = response.statusCode();
                    statuses.merge(status, 1, Integer::sum);
                    byOperation.computeIfAbsent(op.toString(), k -> new int[3])[status >= 500 ? 2 : status >= 400 ? 1 : 0]++;
                    if (status >= 500) {
                        violations.add(r + ": " + status + " " + response.body());
                    } else if (status >= 400) {
                        String type = response.headers().firstValue("Content-Type").orElse("");
                        if (!type.startsWith("application/problem+json")) {
                            violations.add(r + ": " + status + " answered as " + type + ", not problem+json");
                        }
                        String after = fixture.state();
                        if (!after.equals(before)) {
                            violations.add(r + ": refused with " + status + " but changed the state:\n"
                                    + difference(before, after));
                            before = after;
                        }
                    } else if (!r.method().equals("GET")) {
                        accepted++;
                        try {
                            fixture.restore();
                        } catch (AssertionError e) {
                            violations.add(r + ": accepted, and then the fixture could not be put back: " + e.getMessage());
                            break fuzzing;
                        }
                        before = fixture.state();
                    }
                    if (sent % 1000 == 0) {
                        System.out.println("REST fuzz: " + sent + " requests, " + violations.size() + " violations");
                    }
                }
            }
        }

        Duration took = Duration.between(started, Instant.now());
        long fiveXx = statuses.entrySet().stream().filter(e -> e.getKey() >= 500).mapToLong(e -> e.getValue()).sum();
        String summary = "REST fuzz " + Instant.now() + ": " + sent + " requests over " + operations.size()
                + " operations (seed " + seed + "), " + accepted + " accepted changes, statuses " + statuses + ", "
                + fiveXx + " 5xx, " + violations.size() + " violations, " + took.toSeconds() + " s";
        System.out.println(summary);
        System.out.println("BENCH_JSON {\"suite\":\"rest-fuzz\",\"requests\":" + sent + ",\"operations\":"
                + operations.size() + ",\"fiveXx\":" + fiveXx + ",\"violations\":" + violations.size()
                + ",\"seconds\":" + took.toSeconds() + "}");
        Path out = Path.of("target", "rest-fuzz");
        Files.createDirectories(out);
        StringBuilder table = new StringBuilder(summary).append("\n\noperation: 2xx 4xx 5xx\n");
        byOperation.forEach((op, c) -> table.append(op).append(": ").append(c[0]).append(' ').append(c[1]).append(' ')
                .append(c[2]).append('\n'));
        Files.writeString(out.resolve("summary-" + seed + ".txt"), table + "\n" + String.join("\n\n", violations));

        assertThat(sent).isGreaterThanOrEqualTo(MIN_REQUESTS);
        assertThat(byOperation.keySet()).hasSize(operations.size());
        assertThat(violations).as("seed %d: %d violations, the first ones", seed, violations.size())
                .isEmpty();
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
