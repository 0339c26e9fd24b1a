package io.blockwork.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * DEVELOPERS.md's rule, checked: no production class above 400 lines without a design note at
 * its top saying why ("Size note:" in the comment before the type's declaration), and none above
 * 600 lines at all (issue 31): a room that large holds several jobs and is split instead.
 */
@Tag("unit")
class ClassSizeTest {

    static final int LIMIT = 400;
    static final int HARD_LIMIT = 600;
    private static final Pattern DECLARATION =
            Pattern.compile("^(public |final |abstract |sealed |non-sealed )*(class|record|interface|enum) ", Pattern.MULTILINE);

    @Test
    void longClassesSayWhyAtTheirTop() throws Exception {
        List<String> unexplained = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                long lines = text.lines().count();
                if (lines <= LIMIT) {
                    continue;
                }
                Matcher m = DECLARATION.matcher(text);
                String top = m.find() ? text.substring(0, m.start()) : text;
                if (!top.contains("Size note:")) {
                    unexplained.add(f + " (" + lines + " lines)");
                }
            }
        }
        assertThat(unexplained).as("classes over %d lines without a size note at their top", LIMIT).isEmpty();
    }

    @Test
    void noClassIsOverTheHardLimit() throws Exception {
        List<String> tooLong = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                long lines = Files.readString(f).lines().count();
                if (lines > HARD_LIMIT) {
                    tooLong.add(f + " (" + lines + " lines)");
                }
            }
        }
        assertThat(tooLong).as("classes over %d lines: split them", HARD_LIMIT).isEmpty();
    }
}
