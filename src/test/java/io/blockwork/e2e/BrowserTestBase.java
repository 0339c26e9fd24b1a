package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.support.TempDataDir;
import java.io.IOException;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ContextConfiguration;

/**
 * One service on a random port and one browser per test class (the service's context is shared
 * by every browser test class, so each uses device names of its own).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ContextConfiguration(initializers = TempDataDir.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BrowserTestBase {

    @LocalServerPort
    int port;

    ServiceClient api;
    Dashboard ui;

    @BeforeAll
    void startBrowser() {
        api = new ServiceClient("http://127.0.0.1:" + port);
        ui = new Dashboard(api.baseUrl());
    }

    @AfterAll
    void stopBrowser() throws IOException {
        try {
            if (ui != null) {
                ui.close();
            }
        } finally {
            if (api != null) {
                api.close();
            }
        }
    }

    /** POSTs JSON as admin and expects {@code status}. */
    String post(String path, String json, int status) throws IOException, InterruptedException {
        HttpResponse<String> r = api.postJson(path, json);
        assertThat(r.statusCode()).as("%s %s: %s", path, json, r.body()).isEqualTo(status);
        return r.body();
    }

    void disk(String name, String size) throws IOException, InterruptedException {
        post("/api/v1/disks", "{\"name\":\"" + name + "\",\"type\":\"memory\",\"size\":\"" + size + "\"}", 201);
    }

    /** A JSON path read from a GET as admin. */
    <T> T read(String path, String jsonPath) throws IOException, InterruptedException {
        HttpResponse<String> r = api.get(path);
        assertThat(r.statusCode()).as("GET %s: %s", path, r.body()).isEqualTo(200);
        return JsonPath.read(r.body(), jsonPath);
    }
}
