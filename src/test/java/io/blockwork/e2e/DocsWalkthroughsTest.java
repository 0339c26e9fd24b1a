package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.e2e.ReadmeScript.Walkthrough;
import io.blockwork.nbd.ExternalTool;
import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14: every walkthrough of README.md and docs/ runs as written, one after another against
 * one service, and leaves nothing behind (no device, pool or export), so each is independent of
 * the others. Walkthroughs whose marker names a test of their own (VolumeWalkthroughTest,
 * SnapshotWalkthroughTest) are run there, with their own checks, and skipped here. Issue 30: the
 * output a page shows of a walkthrough's command is what the service printed ({@link ShownOutput}).
 */
@Tag("real-client")
class DocsWalkthroughsTest {

    private static RunningService running;
    private static int nbdPort;

    @BeforeAll
    static void start() throws Exception {
        running = RunningService.start(TempDataDir.newDataDir());
        nbdPort = JsonPath.read(running.client().get("/api/v1/system").body(), "$.nbd.port");
    }

    @AfterAll
    static void stop() {
        running.close();
    }

    /**
     * Issue 30: every output block of a page is one a walkthrough of the page prints (so none is
     * left unchecked), and every {@code # output:} command has its block.
     */
    private static void everyShownOutputIsMarked(List<Walkthrough> all) throws Exception {
        Map<Path, Set<String>> marked = new LinkedHashMap<>();
        for (Walkthrough w : all) {
            marked.computeIfAbsent(w.page(), p -> new LinkedHashSet<>()).addAll(ShownOutput.marked(w.script()));
        }
        for (Path page : ReadmeScript.pages()) {
            assertThat(ShownOutput.shownOn(page).keySet()).as("output blocks of %s", page)
                    .containsExactlyInAnyOrderElementsOf(marked.getOrDefault(page, Set.of()));
        }
    }

    @Test
    void everyWalkthroughRunsAndCleansUpAfterItself(@TempDir Path scratch) throws Exception {
        for (String tool : new String[] {"bash", "curl", "head", "cmp", "sed", "qemu-img", "nbdinfo", "nbdcopy"}) {
            ExternalTool.require(tool);
        }
        List<Walkthrough> all = ReadmeScript.walkthroughs();
        assertThat(all).as("walkthroughs found").hasSizeGreaterThanOrEqualTo(7);
        everyShownOutputIsMarked(all);
        // every page's outputs compared before failing, so one run names each stale block
        SoftAssertions shownOutputs = new SoftAssertions();
        int ran = 0;
        for (Walkthrough w : all) {
            assertThat(w.script()).as(w.toString()).contains("API=${API:-", "PASS=").doesNotContain("-o /dev/null");
            if (w.marker().contains("Test runs this block")) {
                assertThat(ShownOutput.marked(w.script())).as("outputs checked here only: %s", w).isEmpty();
                continue;
            }
            Path dir = Files.createDirectories(scratch.resolve("w" + ran++));
            ServiceClient api = running.client();
            ReadmeScript.run(w.script(), api, nbdPort, dir);
            Map<String, String> shown = ShownOutput.shownOn(w.page());
            for (String name : ShownOutput.marked(w.script())) {
                shownOutputs.assertThat(ShownOutput.normalised(ShownOutput.printed(dir, name)))
                        .as("what %s shows as output %s, against what the service printed", w.page(), name)
                        .isEqualTo(ShownOutput.normalised(shown.get(name)));
            }
            for (String list : new String[] {"/api/v1/devices", "/api/v1/pools", "/api/v1/exports", "/api/v1/dm/devices",
                    "/api/v1/arrays"}) {
                assertThat(api.get(list).body()).as("%s after %s", list, w).isEqualTo("[]");
            }
        }
        shownOutputs.assertAll();
        assertThat(ran).as("walkthroughs run here").isGreaterThanOrEqualTo(5);
    }
}
