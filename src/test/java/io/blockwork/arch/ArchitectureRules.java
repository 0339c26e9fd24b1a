package io.blockwork.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.lang.ArchRule;
import java.util.List;

/**
 * The layer rules of ARCHITECTURE.md §1, as functions of the root package, so that the same rules
 * check Blockwork ({@code io.blockwork}) and deliberately broken fixtures ({@code io.blockwork.archfixture}).
 */
final class ArchitectureRules {

    private ArchitectureRules() {}

    /** The engine is plain Java: no Spring, JPA or Jackson, and nothing from the layers above it. */
    static ArchRule engineIsPure(String root) {
        return noClasses().that().resideInAPackage(root + ".engine..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "org.springframework..", "jakarta.persistence..", "tools.jackson..", "com.fasterxml.jackson..",
                        root + ".api..", root + ".service..", root + ".persistence..", root + ".nbd..")
                .as("the engine depends on no framework and no upper layer");
    }

    /** The NBD server sees only the block API of the engine (and the JDK). */
    static ArchRule nbdSeesOnlyEngineBlock(String root) {
        return classes().that().resideInAPackage(root + ".nbd..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        root + ".nbd..", root + ".engine.block..", "java..", "javax..", "jdk..")
                .as("the NBD server depends only on engine.block and the JDK")
                .allowEmptyShould(true);
    }

    /** Controllers talk to services, never to repositories or entities. */
    static ArchRule apiDoesNotReachPersistence(String root) {
        return noClasses().that().resideInAPackage(root + ".api..")
                .should().dependOnClassesThat().resideInAPackage(root + ".persistence..")
                .as("the API layer does not reach persistence directly");
    }

    /** Services do not know about HTTP controllers or their bodies. */
    static ArchRule serviceDoesNotKnowTheApi(String root) {
        return noClasses().that().resideInAPackage(root + ".service..")
                .should().dependOnClassesThat().resideInAPackage(root + ".api..")
                .as("services do not depend on the API layer");
    }

    static List<ArchRule> all(String root) {
        return List.of(engineIsPure(root), nbdSeesOnlyEngineBlock(root), apiDoesNotReachPersistence(root),
                serviceDoesNotKnowTheApi(root));
    }
}
