package io.blockwork.arch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

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
                        root + ".nbd..", root + ".engine.block..", "java..", "javax..", "jdk..",
                        "com.google.errorprone.annotations..")
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

    /**
     * The service layer's floor: what every feature stands on (assembly, management operations,
     * the device registry, node identity, problems). Features are the other packages under {@code service}.
     */
    static final List<String> SERVICE_FLOOR = List.of("assembly", "consistency", "device", "node", "problem");

    private static String[] floor(String root) {
        return SERVICE_FLOOR.stream().map(p -> root + ".service." + p + "..").toArray(String[]::new);
    }

    /** The floor knows no feature: a feature can be added or removed without touching it. */
    static ArchRule serviceFloorKnowsNoFeature(String root) {
        return noClasses().that().resideInAnyPackage(floor(root))
                .should().dependOnClassesThat(resideInAPackage(root + ".service..")
                        .and(not(resideInAnyPackage(floor(root))))
                        .and(not(resideInAPackage(root + ".service"))))
                .as("the service floor (" + String.join(", ", SERVICE_FLOOR) + ") depends on no service feature")
                .allowEmptyShould(true);
    }

    /**
     * Service features depend on each other one way only (snapshots on volumes, volumes on pools,
     * never back): a feature that needs something of a feature above it declares an interface the
     * other implements ({@code VolumeSnapshots}).
     */
    static ArchRule serviceFeaturesHaveNoCycles(String root) {
        return slices().matching(root + ".service.(*)..").namingSlices("service feature $1")
                .should().beFreeOfCycles()
                .as("service features depend on each other without cycles");
    }

    static List<ArchRule> all(String root) {
        return List.of(engineIsPure(root), nbdSeesOnlyEngineBlock(root), apiDoesNotReachPersistence(root),
                serviceDoesNotKnowTheApi(root), serviceFloorKnowsNoFeature(root), serviceFeaturesHaveNoCycles(root));
    }
}
