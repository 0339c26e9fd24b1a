package io.blockwork.support;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;

/**
 * Which configuration database the tests run the service on: H2 (the default, a file in each data
 * dir) or PostgreSQL ({@code -Dblockwork.test.database=postgresql}: a database per data dir on the
 * JVM's {@link PostgresCluster}). The build's {@code postgresql} surefire run sets it for a
 * representative set of API and restart tests; every test that reaches the database goes
 * through here, so the same test runs on both.
 */
public enum TestDatabase {
    H2,
    POSTGRESQL;

    public static final String PROPERTY = "blockwork.test.database";

    public static TestDatabase current() {
        return valueOf(System.getProperty(PROPERTY, "h2").toUpperCase(Locale.ROOT));
    }

    /** The datasource settings of the service whose data dir is {@code dataDir}. */
    public Map<String, Object> datasource(Path dataDir) {
        return switch (this) {
            case H2 -> Map.of();
            case POSTGRESQL -> Map.of(
                    "spring.datasource.url", PostgresCluster.shared().database(databaseName(dataDir)),
                    "spring.datasource.username", PostgresCluster.USER,
                    "spring.datasource.password", "");
        };
    }

    /** A JDBC connection to the configuration database of the data dir, as the service would open it. */
    public Connection connect(Path dataDir) throws SQLException {
        return switch (this) {
            case H2 -> DriverManager.getConnection("jdbc:h2:file:" + dataDir.resolve("blockwork"), "sa", "");
            case POSTGRESQL -> DriverManager.getConnection(
                    PostgresCluster.shared().database(databaseName(dataDir)), PostgresCluster.USER, "");
        };
    }

    /** One database per data dir, so a restart on the same data dir finds its configuration. */
    private static String databaseName(Path dataDir) {
        return "bw_" + dataDir.getFileName().toString().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
    }
}
