package io.blockwork.arch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rules inside modules, as functions of the root package, so that the same rules check
 * Blockwork ({@code io.blockwork}) and deliberately broken fixtures ({@code io.blockwork.archfixture}).
 * What holds between modules (no cycles, the floor knows no feature, only named parts are used)
 * is Spring Modulith's to check: {@link ModulesTest}.
 */
final class ArchitectureRules {

    private ArchitectureRules() {}

    /** The engine is plain Java: no Spring, JPA or Jackson, and nothing of the service around it. */
    static ArchRule engineIsPure(String root) {
        return noClasses().that().resideInAPackage(root + ".engine..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "org.springframework..", "jakarta.persistence..", "tools.jackson..", "com.fasterxml.jackson..")
                .orShould().dependOnClassesThat(resideInAPackage(root + "..").and(not(resideInAPackage(root + ".engine.."))))
                .as("the engine depends on no framework and nothing outside it");
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

    /** Controllers talk to application services, never to repositories or entities. */
    static ArchRule webDoesNotReachStore(String root) {
        return noClasses().that().resideInAPackage(root + "..web..")
                .should().dependOnClassesThat().resideInAPackage(root + "..store..")
                .as("a web part does not reach a store directly");
    }

    /** Application services do not know about HTTP controllers or their bodies. */
    static ArchRule appDoesNotKnowTheWeb(String root) {
        return noClasses().that().resideInAPackage(root + "..app..")
                .should().dependOnClassesThat().resideInAPackage(root + "..web..")
                .as("an application part does not depend on a web part");
    }

    /**
     * Inside the pool module (a volume group, as lvm2's: pools, volumes, snapshots and thin pools,
     * whose entities name one another), the application parts depend on each other one way only:
     * thin on snapshots, snapshots on volumes, volumes on pools, never back. One that needs
     * something of a part above it declares an interface the other implements ({@code VolumeSnapshots}).
     */
    static ArchRule poolPartsHaveNoCycles(String root) {
        // pool.app is the part "pool"; pool.<part>.app the part <part>; every other package is left out
        Pattern part = Pattern.compile(Pattern.quote(root + ".pool.") + "(?:(\\w+)\\.)?app");
        return slices().assignedFrom(new SliceAssignment() {
                    @Override
                    public SliceIdentifier getIdentifierOf(JavaClass c) {
                        Matcher m = part.matcher(c.getPackageName());
                        if (!m.matches()) {
                            return SliceIdentifier.ignore();
                        }
                        return SliceIdentifier.of(m.group(1) == null ? "pool" : m.group(1));
                    }

                    @Override
                    public String getDescription() {
                        return "the pool module's application parts";
                    }
                })
                .should().beFreeOfCycles()
                .as("the pool module's application parts depend on each other without cycles");
    }

    static List<ArchRule> all(String root) {
        return List.of(engineIsPure(root), nbdSeesOnlyEngineBlock(root), webDoesNotReachStore(root),
                appDoesNotKnowTheWeb(root), poolPartsHaveNoCycles(root));
    }
}
