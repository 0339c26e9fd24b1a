package io.blockwork.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * Gives every application context a data directory of its own under target/test-data (and, on
 * PostgreSQL, a database of its own), the test users' passwords, and an NBD server on a free port.
 */
public class TempDataDir implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    public static final String ADMIN_PASSWORD = "admin-test-password";
    public static final String VIEWER_PASSWORD = "viewer-test-password";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test-data-dir",
                properties(newDataDir())));
    }

    public static Path newDataDir() {
        try {
            Path root = Path.of("target", "test-data").toAbsolutePath();
            Files.createDirectories(root);
            return Files.createTempDirectory(root, "ctx-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The settings of a service on {@code dataDir}, its database as {@link TestDatabase#current()} says. */
    public static Map<String, Object> properties(Path dataDir) {
        Map<String, Object> p = new HashMap<>(TestDatabase.current().datasource(dataDir));
        p.put("blockwork.data-dir", dataDir.toString());
        p.put("blockwork.nbd.port", "0");
        p.put("blockwork.security.admin-password", ADMIN_PASSWORD);
        p.put("blockwork.security.viewer-password", VIEWER_PASSWORD);
        return Map.copyOf(p);
    }
}
