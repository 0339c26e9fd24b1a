package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Unit tests of the dashboard's JavaScript helpers (byte and rate formatting, the event-stream
 * frames and the state they make, refreshes that never overlap, chart series, time to full), run
 * in the headless Chromium the other browser tests use: the page
 * {@code src/test/resources/static/js-tests/} imports the real modules. No Node, no build.
 */
@Tag("browser")
class DashboardScriptsBrowserTest extends BrowserTestBase {

    @Test
    void theHelpersPassTheirTests() {
        ui.browser().get(api.baseUrl() + "/js-tests/index.html");
        ui.until(d -> ui.js("return window.testResults !== undefined;").equals(Boolean.TRUE));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> results = (List<Map<String, Object>>) ui.js("return window.testResults;");
        assertThat(results).hasSizeGreaterThanOrEqualTo(14);
        assertThat(results).as("failed JS tests").filteredOn(r -> !Boolean.TRUE.equals(r.get("ok"))).isEmpty();
        // the checker itself can fail: its first test proves it
        assertThat(results.getFirst().get("name")).isEqualTo("eq rejects a difference");
    }
}
