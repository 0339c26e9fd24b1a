package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;

/**
 * An array's page: mdadm --detail's members, a throttled recovery's moving progress bar, member
 * actions done by clicking (fail, remove, add spare, check), checked through the API; a parity
 * array's write journal; the device page's charts after I/O; the overview.
 */
@Tag("browser")
class DashboardArrayBrowserTest extends BrowserTestBase {

    private static final String A = "/api/v1/arrays/arr-md";

    /**
     * Issue 30: the page offered the array as its own spare and replacement (the API refuses it, a
     * cycle). It offers what the API names in joinCandidates: not the array, nothing built on it,
     * nothing too small; a disk nothing uses is offered.
     */
    @Test
    void theSpareAndReplacementListsOfferWhatMayJoinAndNeverTheArrayOrWhatIsBuiltOnIt() throws Exception {
        for (String d : new String[] {"elig-d1", "elig-d2", "elig-d3"}) {
            disk(d, "32MiB");
        }
        disk("elig-small", "4MiB");
        post("/api/v1/arrays", "{\"name\":\"elig-md\",\"level\":\"raid1\",\"assumeClean\":true,"
                + "\"members\":[\"elig-d1\",\"elig-d2\"]}", 201);
        post("/api/v1/dm/devices", "{\"name\":\"elig-lin\",\"table\":\"0 8192 linear elig-md 0\"}", 201);
        assertThat(this.<List<String>>read("/api/v1/arrays/elig-md", "$.joinCandidates"))
                .contains("elig-d3").doesNotContain("elig-md", "elig-lin", "elig-small", "elig-d1");

        ui.signIn("admin");
        ui.open("#/devices/elig-md");
        for (String list : new String[] {"spare-device", "replace-with-elig-d1"}) {
            List<String> offered = ui.until(d -> {
                List<String> names = new Select(d.findElement(By.id(list))).getOptions().stream()
                        .map(o -> o.getAttribute("value")).filter(v -> !v.isEmpty()).toList();
                return names.contains("elig-d3") ? names : null;
            });
            assertThat(offered).as(list).doesNotContain("elig-md", "elig-lin", "elig-small", "elig-d1", "elig-d2")
                    .containsExactlyInAnyOrderElementsOf(read("/api/v1/arrays/elig-md", "$.joinCandidates"));
        }
    }

    @Test
    void membersAreFailedRemovedAndRebuiltFromThePage() throws Exception {
        for (String d : new String[] {"arr-d1", "arr-d2", "arr-d3"}) {
            disk(d, "32MiB");
        }
        post("/api/v1/arrays", "{\"name\":\"arr-md\",\"level\":\"1\",\"assumeClean\":true,"
                + "\"members\":[\"arr-d1\",\"arr-d2\"]}", 201);
        ui.signIn("admin");
        ui.open("#/devices/arr-md");
        ui.text(By.cssSelector("#members tr[data-name='arr-d1']"), "active sync");
        assertThat(ui.text(By.cssSelector("#members tr[data-name='arr-d2']"), "active sync")).contains("1");

        // fail d2 by clicking; the API agrees, the page says why it cannot be failed twice
        ui.click(By.id("fail-arr-d2"));
        ui.text(By.cssSelector("#members tr[data-name='arr-d2']"), "faulty");
        assertThat(this.<List<String>>read(A, "$.members[?(@.device == 'arr-d2')].state")).containsExactly("faulty");
        ui.text(By.id("fail-arr-d2-why"), "already faulty");
        ui.text(By.id("array-state"), "degraded");

        // remove it (typing its name to confirm)
        ui.confirm(By.id("remove-arr-d2"), "arr-d2");
        ui.until(d -> d.findElements(By.cssSelector("#members tr[data-name='arr-d2']")).isEmpty());
        assertThat(this.<List<String>>read(A, "$.members[*].device")).doesNotContain("arr-d2");

        // throttle recovery, add d3 as a spare: it is rebuilt and the bar moves
        ui.type(By.id("speed-max"), "2MiB");
        ui.click(By.id("set-speed"));
        ui.until(d -> {
            try {
                return this.<Integer>read(A, "$.speedLimits.max") == 2 * 1024 * 1024;
            } catch (Exception e) {
                return false;
            }
        });
        ui.choose(By.id("spare-device"), "arr-d3");
        ui.click(By.id("add-spare"));
        String first = ui.visible(By.id("sync-progress")).getAttribute("aria-valuenow");
        ui.until(d -> !first.equals(d.findElement(By.id("sync-progress")).getAttribute("aria-valuenow")));
        ui.text(By.id("sync-speed"), "finish in");
        ui.text(By.id("sync-check-why"), "array is recovering");
        ui.screenshot("array");
        ui.type(By.id("speed-max"), "1GiB");
        ui.click(By.id("set-speed"));
        ui.text(By.cssSelector("#members tr[data-name='arr-d3']"), "active sync");
        // md's mismatch_cnt in sectors, with what counted it (issue 30: "0 (after the last recover)",
        // but a recovery compares nothing and keeps the count of the scrub before it)
        ui.text(By.id("array-mismatches"), "^0 sectors found differing by the last resync, check or repair$");

        // a check, started by clicking
        ui.click(By.id("sync-check"));
        ui.until(d -> {
            try {
                return "check".equals(this.<String>read(A, "$.lastSyncAction"));
            } catch (Exception e) {
                return false;
            }
        });
        ui.text(By.id("array-mismatches"), "^0 sectors found differing by the last check$");
    }

    @Test
    void aParityArraysPageShowsItsWriteJournalAndWhetherItStillProtectsWrites() throws Exception {
        for (String d : new String[] {"arj-d1", "arj-d2", "arj-d3", "arj-j"}) {
            disk(d, "8MiB");
        }
        post("/api/v1/arrays", "{\"name\":\"arj-md\",\"level\":\"raid5\",\"assumeClean\":true,"
                + "\"members\":[\"arj-d1\",\"arj-d2\",\"arj-d3\"],\"journal\":\"arj-j\"}", 201);
        assertThat(api.put("/api/v1/devices/arj-md/data?offset=0", new byte[4096]).statusCode()).isEqualTo(204);
        ui.signIn("admin");
        ui.open("#/devices/arj-md");
        ui.text(By.id("array-journal"), "^arj-j: .* of 8 MiB in use; records 1, checkpoints 0$");
        // the states the API reports when the journal no longer protects every write (engine tests make them)
        Object said = ui.jsAsync("""
                const done = arguments[arguments.length - 1];
                import('/js/views/array.js').then((m) => {
                  const j = {device: 'j', sizeBytes: 8388608, usedBytes: 4096, records: 1, checkpoints: 0};
                  done([m.journalFact({...j, failed: true, pinned: false}), m.journalFact({...j, failed: false, pinned: true}),
                        m.journalFact({device: 'j'})]);
                });""");
        assertThat((List<?>) said).satisfiesExactly(
                f -> assertThat(f).asString().endsWith("failed: writes are refused until the array is assembled again"),
                p -> assertThat(p).asString().contains("keeping a failed stripe write's record", "refused once it is full"),
                n -> assertThat(n).isEqualTo("j (not assembled)"));
    }

    @Test
    void theDevicePageChartsIoAndTheOverviewShowsTheBusiestDevices() throws Exception {
        disk("arr-io", "16MiB");
        ui.signIn("admin");
        ui.open("#/devices/arr-io");
        ui.text(By.id("device-health"), "ok");
        byte[] block = new byte[64 * 1024];
        for (int i = 0; i < 32; i++) {
            assertThat(api.put("/api/v1/devices/arr-io/data?offset=" + i * block.length, block).statusCode()).isEqualTo(204);
        }
        // the I/O second is sampled, the chart has points with writes in them
        ui.until(d -> ((Boolean) ui.js("""
                const c = document.querySelector('#chart-iops');
                return c !== null && Number(c.dataset.points) > 0 && Number(c.dataset.max) > 0;""")));
        ui.choose(By.id("range"), "5 minutes");
        ui.screenshot("device");
        ui.nav("overview");
        ui.visible(By.cssSelector("#iotop tr[data-name='arr-io']"));
        ui.visible(By.id("health-headline"));
        ui.screenshot("overview");
    }
}
