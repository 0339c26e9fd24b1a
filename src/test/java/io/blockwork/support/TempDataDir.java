package io.blockwork.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * Gives every application context a data directory of its own under target/test-data, the
 * test users' passwords, and an NBD server on a free port.
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

    public static Map<String, Object> properties(Path dataDir) {
        return Map.of(
                "blockwork.data-dir", dataDir.toString(),
                "blockwork.nbd.port", "0",
                "blockwork.security.admin-password", ADMIN_PASSWORD,
                "blockwork.security.viewer-password", VIEWER_PASSWORD);
    }
}
