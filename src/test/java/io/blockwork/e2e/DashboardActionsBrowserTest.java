package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebElement;

/**
 * The remaining action families, done by clicking and typing and checked through the API: an
 * array's resync paused and resumed, a member replaced, failed and re-added, a repair; a dm
 * device's table loaded into the inactive slot, suspend, resume and a message; a seed experiment
 * with both strategies' results; a snapshot merge whose progress shows while it copies.
 */
@Tag("browser")
class DashboardActionsBrowserTest extends BrowserTestBase {

    private static final String A = "/api/v1/arrays/ac-md";

    /**
     * Waits until {@code check} holds, reading the API (exceptions count as "not yet"); on a
     * timeout says what the array and the page's problems were.
     */
    private void untilApi(Callable<Boolean> check) throws Exception {
        try {
            ui.until(d -> {
                try {
                    return check.call();
                } catch (Exception e) {
                    return false;
                }
            });
        } catch (TimeoutException e) {
            throw new AssertionError("timed out; array: " + api.get(A).body() + "; problems on the page: "
                    + ui.all(By.cssSelector(".problem")).stream().map(WebElement::getText).toList(), e);
        }
    }

    private String memberState(String device) throws Exception {
        List<String> states = read(A, "$.members[?(@.device == '" + device + "')].state");
        return states.isEmpty() ? "absent" : states.getFirst();
    }

    @Test
    void aResyncIsPausedAndResumedAMemberReplacedFailedReAddedAndTheArrayRepaired() throws Exception {
        for (String d : new String[] {"ac-d1", "ac-d2", "ac-d3"}) {
            disk(d, "32MiB");
        }
        // a slow initial resync, so there is time to pause it
        post("/api/v1/arrays", "{\"name\":\"ac-md\",\"level\":\"1\",\"members\":[\"ac-d1\",\"ac-d2\"],"
                + "\"speedLimits\":{\"min\":\"1MiB\",\"max\":\"1MiB\"}}", 201);
        ui.signIn("admin");
        ui.open("#/devices/ac-md");
        ui.visible(By.id("sync-progress"));
        ui.text(By.id("sync-resume-why"), "not paused");

        ui.click(By.id("sync-pause"));
        untilApi(() -> this.<Boolean>read(A, "$.sync.paused"));
        ui.text(By.id("sync-speed"), "paused");
        ui.text(By.id("sync-pause-why"), "already paused");
        ui.click(By.id("sync-resume"));
        untilApi(() -> !this.<Boolean>read(A, "$.sync.paused"));
        ui.text(By.id("sync-resume-why"), "not paused");

        // let the resync finish, then replace d2 with d3 by choosing it and clicking
        ui.type(By.id("speed-min"), "1GiB");
        ui.type(By.id("speed-max"), "1GiB");
        ui.click(By.id("set-speed"));
        untilApi(() -> "idle".equals(read(A, "$.sync.action")));
        ui.text(By.id("replace-ac-d2-why"), "choose a device");
        ui.choose(By.id("replace-with-ac-d2"), "ac-d3");
        ui.click(By.id("replace-ac-d2"));
        untilApi(() -> "in_sync".equals(memberState("ac-d3")) && !"in_sync".equals(memberState("ac-d2")));
        ui.text(By.cssSelector("#members tr[data-name='ac-d3']"), "active sync");

        // fail d1, then re-add it: it is back in the array
        ui.click(By.id("fail-ac-d1"));
        untilApi(() -> "faulty".equals(memberState("ac-d1")));
        ui.text(By.id("re-add-ac-d3-why"), "only a failed member can be re-added");
        ui.click(By.id("re-add-ac-d1"));
        untilApi(() -> "in_sync".equals(memberState("ac-d1")));
        ui.text(By.cssSelector("#members tr[data-name='ac-d1']"), "active sync");

        // a repair, started by clicking
        untilApi(() -> "idle".equals(read(A, "$.sync.action")));
        ui.click(By.id("sync-repair"));
        untilApi(() -> "repair".equals(read(A, "$.lastSyncAction")));
    }

    @Test
    void aTableIsLoadedInactiveThenSuspendResumeAndAMessage() throws Exception {
        disk("ac-data", "8MiB");
        disk("ac-log", "8MiB");
        post("/api/v1/dm/devices", "{\"name\":\"ac-lw\",\"table\":\"0 16384 log-writes ac-data ac-log\"}", 201);
        String dm = "/api/v1/dm/devices/ac-lw";
        ui.signIn("admin");
        ui.open("#/devices/ac-lw");
        ui.text(By.id("dm-live-table"), "log-writes");
        ui.text(By.id("dm-resume-why"), "not suspended and no table waiting");

        // a message the target refuses shows its problem; one it takes shows its reply
        ui.type(By.id("dm-message"), "frobnicate now");
        ui.click(By.id("dm-send-message"));
        ui.text(By.id("dm-send-message-problem"), "mark <name>");
        ui.type(By.id("dm-message"), "mark before-load");
        ui.click(By.id("dm-send-message"));
        ui.text(By.id("dm-reply"), ".");

        // load a smaller table: it waits in the inactive slot, the live one is unchanged
        ui.type(By.id("dm-load-text"), "0 8192 log-writes ac-data ac-log");
        ui.click(By.id("dm-load-button"));
        ui.text(By.id("dm-inactive-table"), "0 8192 log-writes");
        assertThat(this.<Boolean>read(dm, "$.info.inactiveTable")).isTrue();
        assertThat(this.<Integer>read("/api/v1/devices/ac-lw", "$.sizeBytes")).isEqualTo(8 << 20);

        // suspend, then resume: the loaded table goes live
        ui.click(By.id("dm-suspend"));
        untilApi(() -> "suspended".equals(read(dm, "$.info.state")));
        ui.text(By.id("dm-suspend-why"), "already suspended");
        ui.click(By.id("dm-resume"));
        untilApi(() -> "active".equals(read(dm, "$.info.state")) && !this.<Boolean>read(dm, "$.info.inactiveTable"));
        assertThat(this.<String>read(dm, "$.table")).startsWith("0 8192 log-writes");
        assertThat(this.<Integer>read("/api/v1/devices/ac-lw", "$.sizeBytes")).isEqualTo(4 << 20);
        ui.text(By.id("dm-live-table"), "0 8192 log-writes");
        ui.until(d -> d.findElements(By.id("dm-inactive-table")).isEmpty());
    }

    @Test
    void aSeedExperimentShowsBothStrategiesAndTheRatio() {
        ui.signIn("admin");
        ui.nav("workloads");
        ui.choose(By.id("experiment-seed"), "000");
        ui.type(By.id("experiment-seconds"), "1");
        ui.click(By.id("start-experiment"));
        By ratio = By.cssSelector(".experiment[data-seed='000'] .ratio");
        ui.until(Duration.ofMinutes(4), d -> !d.findElements(ratio).isEmpty());
        assertThat(ui.text(ratio, "ratio")).matches("(?s).*→.*ratio [0-9.]+×.*");
        // one chart per strategy, side by side, each with points
        ui.until(d -> d.findElements(By.cssSelector(".experiment[data-seed='000'] .side-by-side .chart")).stream()
                .filter(c -> Integer.parseInt(c.getAttribute("data-points")) > 0).count() == 2);
        assertThat(ui.all(By.cssSelector(".experiment[data-seed='000'] .side-by-side h4"))).hasSize(2);
    }

    @Test
    void aVolumeIsRenamedAndASnapshotMergeShowsItsProgressWhileItCopies() throws Exception {
        disk("ac-pd", "64MiB");
        post("/api/v1/pools", "{\"name\":\"ac-p\",\"device\":\"ac-pd\"}", 201);
        post("/api/v1/pools/ac-p/volumes", "{\"name\":\"ac-v0\",\"size\":\"16MiB\"}", 201);
        ui.signIn("admin");
        ui.open("#/pools/ac-p");

        // rename by typing the new name
        ui.text(By.id("rename-ac-v0-why"), "enter a new name");
        ui.type(By.id("new-name-ac-v0"), "ac-v");
        ui.click(By.id("rename-ac-v0"));
        ui.visible(By.cssSelector("#volume-table tr[data-name='ac-v']"));
        assertThat(api.get("/api/v1/pools/ac-p/volumes/ac-v").statusCode()).isEqualTo(200);
        assertThat(api.get("/api/v1/pools/ac-p/volumes/ac-v0").statusCode()).isEqualTo(404);

        // a snapshot, then changes to every other chunk: each is a merge step of its own
        ui.type(By.id("snapshot-name-ac-v"), "ac-s");
        ui.type(By.id("snapshot-size-ac-v"), "16MiB");
        ui.click(By.id("take-snapshot-ac-v"));
        ui.visible(By.cssSelector("li.snapshot[data-name='ac-s']"));
        byte[] block = new byte[4096];
        for (int i = 0; i < 256; i++) {
            assertThat(api.put("/api/v1/devices/ac-v/data?offset=" + i * 32768L, block).statusCode()).isEqualTo(204);
        }
        // a slow pool disk, so the merge's steps (copy, flush, commit) take seconds in all
        assertThat(api.send("PATCH", "/api/v1/disks/ac-pd", "application/json",
                "{\"latency\":{\"write\":\"20ms\",\"flush\":\"20ms\"}}").statusCode()).isEqualTo(200);

        ui.confirm(By.id("merge-ac-s-button"), "ac-s");
        String first = ui.visible(By.id("merge-ac-s")).getAttribute("aria-valuenow");
        ui.until(d -> !d.findElements(By.id("merge-ac-s")).isEmpty()
                && Double.parseDouble(d.findElement(By.id("merge-ac-s")).getAttribute("aria-valuenow")) > Double.parseDouble(first));
        ui.text(By.id("merge-ac-s-button-why"), "ac-s is merging");
        ui.text(By.id("delete-ac-s-why"), "merging");
        ui.screenshot("merge");
        assertThat(api.send("PATCH", "/api/v1/disks/ac-pd", "application/json", "{\"latency\":{\"write\":\"0us\",\"flush\":\"0us\"}}").statusCode()).isEqualTo(200);
        ui.until(Duration.ofMinutes(2), d -> d.findElements(By.cssSelector("li.snapshot[data-name='ac-s']")).isEmpty());
        assertThat(this.<List<String>>read("/api/v1/pools/ac-p/volumes/ac-v", "$.snapshots")).isEmpty();
    }
}
