package io.blockwork.shared.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, acceptance 4 (REST): the {@link RestFuzzer} against the service. None of its
 * requests may be answered with a 5xx, every refusal is a problem+json body, and a refused request
 * changes nothing.
 *
 * <p>{@value #MIN_REQUESTS} requests by default (the PostgreSQL pass in pom.xml sends fewer); more with
 * {@code -Dblockwork.fuzz.requests=100000}, another sequence with {@code -Dblockwork.fuzz.seed=N}.
 * The summary, by operation, is written to {@code target/rest-fuzz/summary-<seed>.txt}.
 */
@Tag("api")
class RestFuzzTest {

    static final int MIN_REQUESTS = 10_000;
    private static final int REQUESTS = Integer.getInteger("blockwork.fuzz.requests", MIN_REQUESTS);

    @Test
    void generatedRequestsNeverBreakTheServiceAndRefusalsChangeNothing() throws Exception {
        long seed = Long.getLong("blockwork.fuzz.seed", System.nanoTime());

        RestFuzzer.Result result = RestFuzzer.run(seed, REQUESTS);

        System.out.println(result.summary());
        System.out.println("BENCH_JSON {\"suite\":\"rest-fuzz\",\"requests\":" + result.sent() + ",\"operations\":"
                + result.operations() + ",\"fiveXx\":" + result.fiveXx() + ",\"violations\":"
                + result.violations().size() + ",\"seconds\":" + result.took().toSeconds() + "}");
        result.write(Path.of("target", "rest-fuzz", "summary-" + seed + ".txt"));
        // the violations first: they say why a run stopped early
        assertThat(result.violations()).as("seed %d: %d violations, the first ones", seed, result.violations().size())
                .isEmpty();
        assertThat(result.sent()).as("seed %d: requests sent", seed).isGreaterThanOrEqualTo(REQUESTS);
        assertThat(result.byOperation().keySet()).hasSize(result.operations());
    }
}
