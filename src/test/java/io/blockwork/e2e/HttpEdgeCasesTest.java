package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.support.TempDataDir;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Requests refused before Blockwork's controllers see them, through the real servlet container:
 * they too are answered with a problem+json body, never the container's HTML page or a 500.
 */
@Tag("api")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpEdgeCasesTest {

    private RunningService running;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    void start() {
        running = RunningService.start(TempDataDir.newDataDir());
    }

    @AfterAll
    void stop() {
        http.close();
        running.close();
    }

    private HttpResponse<String> anonymous(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(running.client().baseUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void isProblem(HttpResponse<String> r, int status, String code) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(r.body()).contains("\"code\":\"" + code + "\"");
    }

    @Test
    void anEncodedSlashInAPathIsAProblemNotAnHtmlPage() throws Exception {
        isProblem(running.client().get("/api/v1/devices/a%2Fb"), 400, "validation-failed");
        isProblem(running.client().get("/api/v1/devices/a%2Fb/data?offset=0&length=512"), 400, "validation-failed");
        isProblem(anonymous("/api/v1/disks/x%2F..%2Fy"), 400, "validation-failed");
        isProblem(running.client().get("/api/v1/disks/a%5Cb"), 400, "validation-failed");
    }

    /** A NUL in the path is refused by the container itself, before any mapping: still a problem. */
    @Test
    void aPathTheContainerRefusesIsAProblemToo() throws Exception {
        isProblem(running.client().get("/api/v1/disks/a%00b"), 400, "validation-failed");
        isProblem(anonymous("/%00"), 400, "validation-failed");
    }

    @Test
    void theErrorPageAskedForDirectlyIsNotFound() throws Exception {
        isProblem(anonymous("/error"), 404, "not-found");
        isProblem(running.client().get("/error"), 404, "not-found");
    }
}
