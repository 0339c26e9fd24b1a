package io.blockwork.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 14, acceptance 1: the README is a front door of at most 200 lines, and every relative
 * link in README.md and docs/ resolves: to a file or folder that exists, and to a heading of the
 * page when it names an anchor.
 */
@Tag("unit")
class DocsLinksTest {

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

    static List<Path> pages() throws Exception {
        List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
    static String anchor(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    static List<String> anchors(Path page) throws Exception {
        List<String> out = new ArrayList<>();
        boolean fence = false;
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) {
                fence = !fence;
            } else if (!fence && line.startsWith("#")) {
                out.add(anchor(line.replaceFirst("^#+", "")));
            }
        }
        return out;
    }

    @Test
    void theReadmeIsAFrontDoorOfAtMost200Lines() throws Exception {
        assertThat(Files.readAllLines(Path.of("README.md"))).hasSizeLessThanOrEqualTo(200);
    }

    /** Issue 31: the design page is where a newcomer looks for the engine's notes; none is missing. */
    @Test
    void theDesignPageLinksEveryEngineNote() throws Exception {
        String design = Files.readString(Path.of("docs/design.md"));
        try (Stream<Path> notes = Files.list(Path.of("docs/engine"))) {
            List<String> missing = notes.map(p -> "engine/" + p.getFileName())
                    .filter(n -> n.endsWith(".md") && !design.contains("](" + n + ")")).sorted().toList();
            assertThat(missing).as("engine notes docs/design.md does not link").isEmpty();
        }
    }

    @Test
    void everyRelativeLinkResolves() throws Exception {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            String text = Files.readString(page).replaceAll("(?s)```.*?```", "");
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto: — not relative
                }
                checked++;
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String fragment = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
                Path resolved = file.isEmpty() ? page : page.resolveSibling(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(page + ": " + target + " (no " + resolved + ")");
                } else if (fragment != null && resolved.toString().endsWith(".md") && !anchors(resolved).contains(fragment)) {
                    broken.add(page + ": " + target + " (no heading #" + fragment + ")");
                }
            }
        }
        assertThat(checked).as("relative links checked").isGreaterThan(30);
        assertThat(broken).as("broken relative links").isEmpty();
    }
}
