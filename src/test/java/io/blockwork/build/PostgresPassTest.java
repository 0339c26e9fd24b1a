package io.blockwork.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.util.AntPathMatcher;

/**
 * docs/testing.md's promise, checked: every API test (a test in a feature's {@code web} part) and
 * every consistency test runs a second time with the configuration in PostgreSQL, but for the
 * classes pom.xml's {@code postgresql} execution excludes by name (each with its reason there).
 * The pass's includes are path patterns, so a feature part one folder deeper ({@code pool/volume/web})
 * could fall out of it silently, as it did once.
 */
@Tag("unit")
class PostgresPassTest {

    private static final Pattern EXECUTION = Pattern.compile("<id>postgresql</id>(.*?)</execution>", Pattern.DOTALL);
    private static final Pattern INCLUDE = Pattern.compile("<include>([^<]+)</include>");
    private static final Pattern EXCLUDE = Pattern.compile("<exclude>([^<]+)</exclude>");
    private static final AntPathMatcher ANT = new AntPathMatcher();

    @Test
    void everyApiAndConsistencyTestRunsOnPostgresqlOrIsExcludedByName() throws Exception {
        String execution = postgresqlExecution(Files.readString(Path.of("pom.xml")));
        List<String> tests;
        Path root = Path.of("src/test/java");
        try (Stream<Path> files = Files.walk(root)) {
            tests = files.map(f -> root.relativize(f).toString().replace('\\', '/')).filter(PostgresPassTest::promised)
                    .sorted().toList();
        }
        assertThat(tests).as("API and consistency tests found").hasSizeGreaterThan(30);
        assertThat(uncovered(tests, patterns(INCLUDE, execution), patterns(EXCLUDE, execution)))
                .as("tests the PostgreSQL pass neither runs nor names as left out").isEmpty();
    }

    /** The must-fail twin: the includes before a pool part's web folder was matched leave its tests out. */
    @Test
    void aPartOneFolderDeeperFallsOutOfAPatternThatStopsAtTheFeature() {
        List<String> tests = List.of("io/blockwork/disk/web/DiskApiTest.java",
                "io/blockwork/pool/volume/web/VolumeUnderIoTest.java", "io/blockwork/pool/app/PoolConsistencyTest.java");
        assertThat(uncovered(tests, List.of("io/blockwork/*/web/**/*Test.java", "io/blockwork/*/app/**/*ConsistencyTest.java"),
                List.of())).containsExactly("io/blockwork/pool/volume/web/VolumeUnderIoTest.java");
        assertThat(uncovered(tests, List.of("io/blockwork/*/web/**/*Test.java", "io/blockwork/pool/*/web/**/*Test.java",
                "io/blockwork/*/app/**/*ConsistencyTest.java"), List.of())).isEmpty();
    }

    /** What the promise covers: test classes in a {@code web} package, and consistency tests. */
    private static boolean promised(String path) {
        return path.startsWith("io/blockwork/") && path.endsWith("Test.java")
                && (path.contains("/web/") || path.endsWith("ConsistencyTest.java"));
    }

    static List<String> uncovered(List<String> tests, List<String> includes, List<String> excludes) {
        return tests.stream().filter(t -> includes.stream().noneMatch(p -> matches(p, t)))
                .filter(t -> excludes.stream().noneMatch(p -> matches(p, t))).toList();
    }

    /** Ant's path patterns as surefire reads them: {@code **} any folders, {@code *} within one name. */
    static boolean matches(String pattern, String path) {
        return ANT.match(pattern, path);
    }

    private static String postgresqlExecution(String pom) {
        Matcher m = EXECUTION.matcher(pom);
        assertThat(m.find()).as("pom.xml has the postgresql surefire execution").isTrue();
        return m.group(1);
    }

    private static List<String> patterns(Pattern p, String text) {
        return p.matcher(text).results().map(r -> r.group(1).trim()).toList();
    }
}
