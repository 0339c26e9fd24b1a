package io.blockwork.e2e;

import io.blockwork.support.TempDataDir;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Calls a running Blockwork over real HTTP as the admin user. */
public final class ServiceClient implements AutoCloseable {

    private final HttpClient http = HttpClient.newHttpClient();
    private final String base;
    private final String auth = "Basic " + Base64.getEncoder().encodeToString(
            ("admin:" + TempDataDir.ADMIN_PASSWORD).getBytes(StandardCharsets.UTF_8));

    ServiceClient(String baseUrl) {
        this.base = baseUrl;
    }

    public HttpResponse<String> postJson(String path, String json) throws IOException, InterruptedException {
        return send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)), HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> put(String path, byte[] body) throws IOException, InterruptedException {
        return send(request(path).header("Content-Type", "application/octet-stream")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body)), HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> post(String path) throws IOException, InterruptedException {
        return send(request(path).POST(HttpRequest.BodyPublishers.noBody()), HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        return send(request(path).DELETE(), HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(request(path).GET(), HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<byte[]> getBytes(String path) throws IOException, InterruptedException {
        return send(request(path).GET(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** Sends a request with a body of {@code contentType}, e.g. a JSON PATCH. */
    public HttpResponse<String> send(String method, String path, String contentType, String body)
            throws IOException, InterruptedException {
        return send(request(path).header("Content-Type", contentType)
                .method(method, HttpRequest.BodyPublishers.ofString(body)), HttpResponse.BodyHandlers.ofString());
    }

    /** Sends a request without a body; returns the status. */
    public int send(String method, String path) throws IOException, InterruptedException {
        return send(request(path).method(method, HttpRequest.BodyPublishers.noBody()),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    public String baseUrl() {
        return base;
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", auth);
    }

    private <T> HttpResponse<T> send(HttpRequest.Builder request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        return http.send(request.build(), handler);
    }

    @Override
    public void close() {
        http.close();
    }
}
