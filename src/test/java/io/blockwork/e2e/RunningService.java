package io.blockwork.e2e;

import io.blockwork.BlockworkApplication;
import io.blockwork.support.TempDataDir;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The real service on a random port and a given data dir, started and stopped by the test itself
 * (a restart needs two lifetimes on one data dir, which a cached test context cannot give).
 */
final class RunningService implements AutoCloseable {

    private final ConfigurableApplicationContext context;
    private final ServiceClient client;

    private RunningService(ConfigurableApplicationContext context) {
        this.context = context;
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        this.client = new ServiceClient("http://127.0.0.1:" + port);
    }

    static RunningService start(Path dataDir) {
        return start(dataDir, Map.of());
    }

    /** The service with settings beyond the test defaults, e.g. a fixed NBD port that a restart keeps. */
    static RunningService start(Path dataDir, Map<String, Object> extra) {
        Map<String, Object> props = new HashMap<>(TempDataDir.properties(dataDir));
        props.put("server.port", "0");
        props.putAll(extra);
        // as command-line arguments: they outrank application.yml, as a user's would
        String[] args = props.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new);
        return new RunningService(new SpringApplicationBuilder(BlockworkApplication.class).run(args));
    }

    ServiceClient client() {
        return client;
    }

    @Override
    public void close() {
        client.close();
        context.close();
    }
}
