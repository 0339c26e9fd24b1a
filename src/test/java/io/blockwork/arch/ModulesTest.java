package io.blockwork.arch;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import io.blockwork.BlockworkApplication;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.modulith.core.ApplicationModule;
import org.springframework.modulith.core.ApplicationModules;
import org.springframework.modulith.docs.Documenter;

/**
 * Issue 31: a feature is one module ({@code io.blockwork.<feature>}, its web, app and store parts
 * inside), checked by Spring Modulith: no cycle between modules (the open floor {@code shared}
 * knows no feature, since every feature stands on it), and a module uses only the parts another
 * names ({@code @NamedInterface} in its package-info: app, and store for the event stream).
 * The must-fail twin runs the same verification over {@code io.blockwork.archfixture}, whose
 * planted violations it must report.
 */
@Tag("unit")
class ModulesTest {

    /**
     * The engine and the NBD server are left out: they are plain Java below every module (no Spring
     * annotation may mark them), whose purity {@link ArchitectureRules} checks class by class.
     */
    static final ApplicationModules BLOCKWORK = ApplicationModules.of(BlockworkApplication.class,
            JavaClass.Predicates.resideInAnyPackage("io.blockwork.engine..", "io.blockwork.nbd.."));

    @Test
    void everyModuleKeepsTheRules() {
        BLOCKWORK.verify();
    }

    @Test
    void theModulesAreTheFeaturesAndTheFloor() {
        assertThat(BLOCKWORK.stream().map(m -> m.getIdentifier().toString()).sorted().toList()).containsExactly(
                "array", "device", "disk", "dm", "event", "export", "iostat", "metrics", "pool",
                "shared", "system", "topology", "workload");
    }

    @Test
    void plantedViolationsAreReported() {
        List<String> violations = ApplicationModules.of(ArchitectureRulesRejectViolationsTest.ROOT, location -> true)
                .detectViolations()
                .getMessages();
        String report = String.join("\n", violations);
        assertThat(report).as("a cycle between two features").containsPattern("(?s)Cycle detected: Slice alpha.*Slice beta");
        assertThat(report).as("the floor knowing a feature").containsPattern("(?s)Cycle detected: Slice alpha.*Slice shared"
                + "|Cycle detected: Slice shared.*Slice alpha");
        assertThat(report).as("a type a module keeps to itself")
                .contains("Module 'beta' depends on non-exposed type io.blockwork.archfixture.alpha.store.AlphaEntity");
        assertThat(report).doesNotContain("Module 'pool'");
    }

    static final Path DIAGRAM = Path.of("docs/modules.md");
    static final String REGENERATE = "mvn -B -ntp test -Dtest=ModulesTest -Dblockwork.modules.update=true";

    /**
     * docs/modules.md is the modules' graph as the code has it (Mermaid, which the forge renders);
     * Modulith's own PlantUML and per-module canvases are written to target/spring-modulith-docs.
     */
    @Test
    void theModuleDiagramInDocsIsTheCodes() throws IOException {
        new Documenter(BLOCKWORK).writeModulesAsPlantUml().writeModuleCanvases();
        String generated = diagram(BLOCKWORK);
        if (Boolean.getBoolean("blockwork.modules.update")) {
            Files.writeString(DIAGRAM, generated);
        }
        assertThat(Files.readString(DIAGRAM)).as("%s is stale; regenerate it with%n  %s", DIAGRAM, REGENERATE)
                .isEqualTo(generated);
    }

    static String diagram(ApplicationModules modules) {
        List<ApplicationModule> all = modules.stream().sorted((a, b) -> name(a).compareTo(name(b))).toList();
        StringBuilder md = new StringBuilder("""
                # Modules

                Generated from the code by `ModulesTest` (regenerate with `%s`); Spring Modulith
                verifies the graph on every build: no cycles, and a module uses only the parts another
                names (`@NamedInterface` in a package-info: a feature's `app`, its `store` for the event
                stream, each part of `shared`). Every module may also use the engine and the NBD server,
                plain Java below them all, which `ArchitectureRules` checks class by class (the engine
                uses nothing above it, the NBD server only `engine.block`).

                ```mermaid
                flowchart TD
                """.formatted(REGENERATE));
        for (ApplicationModule m : all) {
            for (String d : dependencies(modules, m)) {
                md.append("  ").append(name(m)).append(" --> ").append(d).append('\n');
            }
        }
        md.append("```\n\n| module | parts | depends on |\n|---|---|---|\n");
        for (ApplicationModule m : all) {
            String parts = m.getNamedInterfaces().stream().filter(i -> !i.isUnnamed()).map(i -> "`" + i.getName() + "`")
                    .distinct().sorted().collect(Collectors.joining(", "));
            md.append("| `").append(name(m)).append("` | ").append(parts.isEmpty() ? "–" : parts).append(" | ")
                    .append(dependencies(modules, m).stream().map(d -> "`" + d + "`").collect(Collectors.joining(", ")))
                    .append(" |\n");
        }
        return md.toString();
    }

    private static List<String> dependencies(ApplicationModules modules, ApplicationModule m) {
        return m.getDirectDependencies(modules).uniqueModules().map(ModulesTest::name).distinct().sorted().toList();
    }

    private static String name(ApplicationModule m) {
        return m.getIdentifier().toString();
    }
}
