package io.blockwork.arch;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The must-fail twin of {@link ArchitectureTest}: the same rules, applied to fixture classes under
 * {@code io.blockwork.archfixture} that break them on purpose, must report exactly those classes.
 */
@Tag("unit")
class ArchitectureRulesRejectViolationsTest {

    static final String ROOT = "io.blockwork.archfixture";
    private static final JavaClasses FIXTURES = new ClassFileImporter().importPackages(ROOT);

    private static String violations(ArchRule rule) {
        EvaluationResult result = rule.evaluate(FIXTURES);
        assertThat(result.hasViolation()).as(rule.getDescription() + " must find violations").isTrue();
        return String.join("\n", result.getFailureReport().getDetails());
    }

    @Test
    void engineDependingOnSpringJpaJacksonOrAFeatureIsRejected() {
        String report = violations(ArchitectureRules.engineIsPure(ROOT));
        assertThat(report).contains("SpringTaintedEngineClass", "JpaTaintedEngineClass",
                "JacksonTaintedEngineClass", "Jackson2TaintedEngineClass", "FeatureReachingEngineClass");
        assertThat(report).doesNotContain("CleanBlockClass", "FixtureDisk");
    }

    @Test
    void nbdDependingOnMoreThanTheBlockApiIsRejected() {
        String report = violations(ArchitectureRules.nbdSeesOnlyEngineBlock(ROOT));
        assertThat(report).contains("NbdReachingDiskClass");
        assertThat(report).doesNotContain("CleanNbdClass");
    }

    @Test
    void webReachingAStoreIsRejected() {
        String report = violations(ArchitectureRules.webDoesNotReachStore(ROOT));
        assertThat(report).contains("WebReachingStoreClass", "InternalsReachingClass");
    }

    @Test
    void anApplicationPartReachingTheWebIsRejected() {
        String report = violations(ArchitectureRules.appDoesNotKnowTheWeb(ROOT));
        assertThat(report).contains("AppReachingWebClass").doesNotContain("AlphaService");
    }

    @Test
    void poolPartsDependingOnEachOtherBothWaysAreRejected() {
        String report = violations(ArchitectureRules.poolPartsHaveNoCycles(ROOT));
        assertThat(report).contains("PoolService", "ThinService").doesNotContain("VolumeService");
    }
}
