package io.blockwork.arch;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Blockwork's own classes keep the layer rules. */
@Tag("unit")
class ArchitectureTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.blockwork");

    static Stream<ArchRule> rules() {
        return ArchitectureRules.all("io.blockwork").stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void mainCodeKeepsTheRule(ArchRule rule) {
        rule.check(MAIN);
    }
}
