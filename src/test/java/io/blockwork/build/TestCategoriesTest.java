package io.blockwork.build;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.platform.commons.annotation.Testable;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Every test class is in one or more of the test categories, as JUnit 5 tags (directly, through
 * {@code @AppTest}, or inherited from the contract kit), so {@code mvn test -Dgroups=<tag>} runs
 * a whole category: {@code unit}, {@code contract}, {@code model-checking}, {@code api},
 * {@code browser}, {@code real-client}. A test with no category, or an unknown one, fails here.
 */
@Tag("unit")
class TestCategoriesTest {

    static final Set<String> CATEGORIES = Set.of("unit", "contract", "model-checking", "api", "browser", "real-client");

    @Test
    void everyTestClassHasAKnownCategory() throws Exception {
        List<String> missing = new ArrayList<>();
        int checked = 0;
        for (JavaClass c : new ClassFileImporter().importPath(Path.of("target/test-classes"))) {
            if (c.isNestedClass() || c.getAllMethods().stream().noneMatch(m -> m.isMetaAnnotatedWith(Testable.class)
                    || m.isAnnotatedWith(Testable.class))) {
                continue;
            }
            Class<?> type = Class.forName(c.getName(), false, getClass().getClassLoader()); // not initialised
            if (Modifier.isAbstract(type.getModifiers())) {
                continue;
            }
            checked++;
            Set<String> tags = AnnotationSupport.findRepeatableAnnotations(type, Tag.class).stream().map(Tag::value)
                    .collect(Collectors.toSet());
            if (tags.isEmpty() || !CATEGORIES.containsAll(tags)) {
                missing.add(c.getSimpleName() + " " + tags);
            }
        }
        assertThat(checked).as("test classes found").isGreaterThan(100);
        assertThat(missing).as("test classes without a known category").isEmpty();
    }
}
