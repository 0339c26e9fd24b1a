package io.blockwork.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The must-fail twin of the build's static check (issue 14, acceptance 4): javac with the very
 * Error Prone arguments pom.xml gives the compiler plugin (read from pom.xml, the JVM flags from
 * .mvn/jvm.config) refuses planted violations under src/test/resources/static-analysis/violations
 * (an unused import, an exception made and never thrown, a {@code @GuardedBy} field read without
 * its lock), and accepts the clean twin, so {@code mvn verify} fails the same way on such code.
 */
@Tag("unit")
class StaticAnalysisRejectsViolationsTest {

    private static final Path FIXTURES = Path.of("src/test/resources/static-analysis");

    @TempDir
    Path out;

    /** The compiler arguments of the pom's maven-compiler-plugin configuration. */
    static List<String> compilerArgs() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher block = Pattern.compile("<compilerArgs>(.*?)</compilerArgs>", Pattern.DOTALL).matcher(pom);
        assertThat(block.find()).as("pom.xml configures compilerArgs").isTrue();
        List<String> args = new ArrayList<>();
        Matcher arg = Pattern.compile("<arg>(.*?)</arg>").matcher(block.group(1));
        while (arg.find()) {
            args.add(arg.group(1).strip());
        }
        assertThat(args).anyMatch(a -> a.startsWith("-Xplugin:ErrorProne"));
        return args;
    }

    private record Result(int exit, String output) {}

    private Result javac(Path dir) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "javac").toString());
        for (String flag : Files.readAllLines(Path.of(".mvn/jvm.config"))) {
            if (!flag.isBlank()) {
                cmd.add("-J" + flag.strip());
            }
        }
        String classpath = System.getProperty("java.class.path");
        cmd.addAll(List.of("-d", out.toString(), "-classpath", classpath, "-processorpath", classpath));
        cmd.addAll(compilerArgs());
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(f -> f.toString().endsWith(".java")).map(Path::toString).forEach(cmd::add);
        }
        Path log = out.resolve("javac.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("javac finished").isTrue();
        return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    @Test
    void plantedViolationsFailTheCompile() throws Exception {
        Result r = javac(FIXTURES.resolve("violations"));
        assertThat(r.exit()).as(r.output()).isNotZero();
        assertThat(r.output()).contains("UnusedImport.java", "[RemoveUnusedImports]")
                .contains("DroppedException.java", "[DeadException]")
                .contains("UnguardedAccess.java", "[GuardedBy]");
    }

    @Test
    void theCleanTwinCompiles() throws Exception {
        Result r = javac(FIXTURES.resolve("clean"));
        assertThat(r.exit()).as(r.output()).isZero();
    }
}
