package io.blockwork.arch;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The must-fail twin of {@link ArchitectureTest}: the same rules, applied to fixture classes under
 * {@code io.blockwork.archfixture} that break them on purpose, must report exactly those classes.
 */
@Tag("unit")
class ArchitectureRulesRejectViolationsTest {

    private static final String ROOT = "io.blockwork.archfixture";
    private static final JavaClasses FIXTURES = new ClassFileImporter().importPackages(ROOT);

    private static String violations(com.tngtech.archunit.lang.ArchRule rule) {
        EvaluationResult result = rule.evaluate(FIXTURES);
        assertThat(result.hasViolation()).as(rule.getDescription() + " must find violations").isTrue();
        return String.join("\n", result.getFailureReport().getDetails());
    }

    @Test
    void engineDependingOnSpringJpaJacksonOrUpperLayersIsRejected() {
        String report = violations(ArchitectureRules.engineIsPure(ROOT));
        assertThat(report).contains("SpringTaintedEngineClass", "JpaTaintedEngineClass",
                "JacksonTaintedEngineClass", "Jackson2TaintedEngineClass", "ServiceReachingEngineClass");
        assertThat(report).doesNotContain("CleanBlockClass", "FixtureDisk");
    }

    @Test
    void nbdDependingOnMoreThanTheBlockApiIsRejected() {
        String report = violations(ArchitectureRules.nbdSeesOnlyEngineBlock(ROOT));
        assertThat(report).contains("NbdReachingDiskClass");
        assertThat(report).doesNotContain("CleanNbdClass");
    }

    @Test
    void apiReachingPersistenceIsRejected() {
        String report = violations(ArchitectureRules.apiDoesNotReachPersistence(ROOT));
        assertThat(report).contains("ApiReachingPersistenceClass");
    }

    @Test
    void serviceReachingTheApiIsRejected() {
        String report = violations(ArchitectureRules.serviceDoesNotKnowTheApi(ROOT));
        assertThat(report).contains("ServiceReachingApiClass");
    }

    @Test
    void theServiceFloorReachingAFeatureIsRejected() {
        String report = violations(ArchitectureRules.serviceFloorKnowsNoFeature(ROOT));
        assertThat(report).contains("FloorReachingFeatureClass").doesNotContain("Class <io.blockwork.archfixture.service.alpha");
    }

    @Test
    void serviceFeaturesDependingOnEachOtherBothWaysAreRejected() {
        String report = violations(ArchitectureRules.serviceFeaturesHaveNoCycles(ROOT));
        assertThat(report).contains("AlphaService", "BetaService");
    }
}
