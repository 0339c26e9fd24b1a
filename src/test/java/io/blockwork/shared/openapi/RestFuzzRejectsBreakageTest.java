package io.blockwork.shared.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The must-fail twin of {@link RestFuzzTest}: the same fuzzer, a few requests per operation,
 * against a service {@link BrokenOnPurpose} (one operation answers 500, one leaves state behind
 * when it refuses). The fuzzer must report both, naming the operations.
 */
@Tag("api")
class RestFuzzRejectsBreakageTest {

    @Test
    void theFuzzerReportsA5xxAndARefusalThatChangedTheState() throws Exception {
        int requests = 3 * ApiOperations.load().all().size();

        RestFuzzer.Result result = RestFuzzer.run(1, requests, BrokenOnPurpose.class);

        assertThat(result.violations()).as(result.summary())
                .anySatisfy(v -> assertThat(v).startsWith("GET /api/v1/pools").contains(": 500 "))
                .anySatisfy(v -> assertThat(v).startsWith("POST /api/v1/disks")
                        .contains("but changed the state").contains(BrokenOnPurpose.LEFT_BEHIND));
        assertThat(result.violations()).as("only the two faults are reported")
                .allSatisfy(v -> assertThat(v).matches("(?s)(GET /api/v1/pools|POST /api/v1/disks).*"));
    }
}
