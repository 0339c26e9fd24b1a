package io.blockwork.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Output a docs page shows, checked against what the service really prints (issue 30: arrays.md
 * showed "super non-persistent" long after arrays had superblocks). In a walkthrough, a one-line
 * command ending in {@code # output: NAME} is run with its output kept; the page shows it in the
 * block after a line {@code <!-- output: NAME -->}. Both are compared after {@link #normalised},
 * which blanks only what differs from run to run.
 */
final class ShownOutput {

    private static final Pattern MARKED_COMMAND = Pattern.compile("(?m)^(.*\\S)\\s+# output: ([\\w-]+)$");
    private static final Pattern SHOWN_BLOCK =
            Pattern.compile("(?ms)^<!-- output: ([\\w-]+) -->\\n```[\\w-]*\\n(.*?)^```$");

    /** What varies from run to run, and what stands for it in the comparison. */
    private static final Map<Pattern, String> VARYING = new LinkedHashMap<>();

    static {
        VARYING.put(Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uuid>");
        VARYING.put(Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d:\\d\\d)?"), "<time>");
        // mdstat's sync line: how far the sync has come, how long it has left, its speed
        VARYING.put(Pattern.compile("\\[=*>\\.*\\]  (\\w+) = *\\d+\\.\\d% \\(\\d+/(\\d+)\\) finish=\\d+\\.\\dmin speed=\\d+K/sec"),
                "[<bar>]  $1 = <percent>% (<done>/$2) finish=<minutes>min speed=<speed>K/sec");
        // mdstat's bitmap line: the counter pages in use come and go as the bitmap daemon clears bits
        VARYING.put(Pattern.compile("bitmap: \\d+/(\\d+) pages \\[\\d+KB\\]"), "bitmap: <in use>/$1 pages [<KiB>KB]");
        // a thin pool's metadata in use: shadow copies are freed at the next commit, a 1 s timer's
        VARYING.put(Pattern.compile("\"usedMetadataBytes\":\\d+,\"metadataPercent\":[\\d.]+"),
                "\"usedMetadataBytes\":<used>,\"metadataPercent\":<percent>");
        VARYING.put(Pattern.compile("thin-pool (\\d+) \\d+/(\\d+) "), "thin-pool $1 <used>/$2 ");
    }

    private ShownOutput() {}

    /**
     * {@code script} with each marked command's output also written to {@code NAME.shown} in
     * {@code dir} (a command continued over lines with a backslash is taken whole); bash's
     * pipefail keeps the command's own exit status.
     */
    static String keepingOutputs(String script, Path dir) {
        List<String> lines = new ArrayList<>(script.lines().toList());
        for (int end = 0; end < lines.size(); end++) {
            Matcher m = MARKED_COMMAND.matcher(lines.get(end));
            if (m.matches()) {
                int start = end;
                while (start > 0 && lines.get(start - 1).endsWith("\\")) {
                    start--;
                }
                lines.set(end, m.group(1) + "; } | tee '" + dir.resolve(m.group(2) + ".shown") + "'");
                lines.set(start, "{ " + lines.get(start));
            }
        }
        return String.join("\n", lines) + "\n";
    }

    /** The names {@code script} marks, in order. */
    static Set<String> marked(String script) {
        Set<String> names = new LinkedHashSet<>();
        Matcher m = MARKED_COMMAND.matcher(script);
        while (m.find()) {
            names.add(m.group(2));
        }
        return names;
    }

    /** The output blocks of {@code page}, by name. */
    static Map<String, String> shownOn(Path page) throws IOException {
        Map<String, String> shown = new LinkedHashMap<>();
        Matcher m = SHOWN_BLOCK.matcher(Files.readString(page));
        while (m.find()) {
            shown.put(m.group(1), m.group(2));
        }
        return shown;
    }

    /** What marked command {@code name} printed in a run whose outputs were kept in {@code dir}. */
    static String printed(Path dir, String name) throws IOException {
        return Files.readString(dir.resolve(name + ".shown"));
    }

    /**
     * {@code text} with what varies between runs replaced by a placeholder, trailing blanks
     * (which mdstat prints and editors strip) and trailing empty lines dropped.
     */
    static String normalised(String text) {
        String s = text;
        for (Map.Entry<Pattern, String> v : VARYING.entrySet()) {
            s = v.getKey().matcher(s).replaceAll(v.getValue());
        }
        return s.replaceAll("(?m)[ \\t]+$", "").replaceAll("\\n+$", "");
    }
}
