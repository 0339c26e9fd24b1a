package io.blockwork.nbd;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The NBD server sees only the engine's block API and the JDK, TLS included (ARCHITECTURE §1), and
 * the compile-time lock annotations.
 */
@Tag("unit")
class NbdDependenciesTest {

    @Test
    void nbdDependsOnlyOnTheBlockApiAndTheJdk() {
        JavaClasses nbd = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.blockwork.nbd");
        classes().that().resideInAPackage("io.blockwork.nbd..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "io.blockwork.nbd..", "io.blockwork.engine.block", "java..", "javax.net.ssl..",
                        "com.google.errorprone.annotations..") // @GuardedBy, checked at compile time
                .check(nbd);
    }
}
