package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/** Pools, volumes and snapshots done from the page: create, resize, export, snapshot take/merge/delete, delete. */
@Tag("browser")
class DashboardPoolsBrowserTest extends BrowserTestBase {

    private static final String VOLUMES = "/api/v1/pools/pl-p/volumes";

    /**
     * Issue 30: a snapshot's sizeBytes meant its COW space here and the origin's size on its export;
     * an overflowed snapshot read "COW — full (— of 8 MiB)" beside an empty gauge and "not filling".
     */
    @Test
    void anOverflowedSnapshotReadsInvalidWithAFullGaugeAndItsSizesAreNamed() throws Exception {
        disk("ov-d", "64MiB");
        post("/api/v1/pools", "{\"name\":\"ov-p\",\"device\":\"ov-d\"}", 201);
        post("/api/v1/pools/ov-p/volumes", "{\"name\":\"ov-v\",\"size\":\"16MiB\"}", 201);
        post("/api/v1/pools/ov-p/volumes/ov-v/snapshots", "{\"name\":\"ov-s\",\"size\":\"4MiB\"}", 201);
        String snap = "/api/v1/pools/ov-p/volumes/ov-v/snapshots/ov-s";
        assertThat(this.<Integer>read(snap, "$.cowSizeBytes")).isEqualTo(4 << 20);
        assertThat(this.<Integer>read(snap, "$.virtualSizeBytes")).isEqualTo(16 << 20);
        assertThat(api.put("/api/v1/devices/ov-v/data?offset=0", new byte[8 << 20]).statusCode()).isEqualTo(204);
        ui.until(d -> {
            try {
                return "invalid".equals(this.<String>read(snap, "$.state"));
            } catch (Exception e) {
                return false;
            }
        });

        ui.signIn("admin");
        ui.open("#/pools/ov-p");
        ui.text(By.id("fill-ov-s"), "^invalid: its 4 MiB of COW space overflowed");
        assertThat(ui.visible(By.id("fill-ov-s")).getAttribute("aria-valuenow")).isEqualTo("100.0");
        assertThat(ui.visible(By.cssSelector("li.snapshot[data-name='ov-s']")).getText()).doesNotContain("not filling");
    }

    /**
     * Issue 30: the extent map drew only the volumes' extents while the capacity bar counted a
     * snapshot's COW space and a carved thin pool's data and metadata too. Every used extent is now
     * drawn with its owner and role, as the API's allocations list them, adding up to extents.used;
     * the pool names the thin pool carved from it.
     */
    @Test
    void theExtentMapDrawsEveryAllocationTheApiCountsAndNamesTheCarvedThinPool() throws Exception {
        disk("em-d", "256MiB");
        post("/api/v1/pools", "{\"name\":\"em-p\",\"device\":\"em-d\"}", 201);
        post("/api/v1/pools/em-p/volumes", "{\"name\":\"em-v\",\"size\":\"32MiB\"}", 201);
        post("/api/v1/pools/em-p/volumes/em-v/snapshots", "{\"name\":\"em-s\",\"size\":\"8MiB\"}", 201);
        post("/api/v1/pools", "{\"name\":\"em-tp\",\"type\":\"thin\",\"from\":\"em-p\",\"size\":\"64MiB\"}", 201);
        String pool = "/api/v1/pools/em-p";
        assertThat(this.<List<String>>read(pool, "$.thinPools")).containsExactly("em-tp");
        assertThat(this.<List<String>>read(pool, "$.allocations[*].role"))
                .contains("volume", "snapshot-cow", "thin-pool-data", "thin-pool-metadata");
        int used = read(pool, "$.extents.used");
        List<Integer> runs = read(pool, "$.allocations[*].extents");
        assertThat(runs.stream().mapToInt(Integer::intValue).sum()).isEqualTo(used);

        ui.signIn("admin");
        ui.open("#/pools/em-p");
        ui.text(By.id("carved-thin-pools"), "em-tp");
        ui.text(By.id("delete-pool-why"), "the pool has 1 volume");
        List<String> owners = read(pool, "$.allocations[*].owner");
        List<String> roles = read(pool, "$.allocations[*].role");
        ui.until(d -> d.findElements(By.cssSelector("#extent-map .extent")).size() == runs.size());
        var drawn = ui.visible(By.id("extent-map")).findElements(By.cssSelector(".extent"));
        assertThat(drawn.stream().map(e -> e.getAttribute("data-owner") + "/" + e.getAttribute("data-role")).toList())
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, runs.size())
                        .mapToObj(k -> owners.get(k) + "/" + roles.get(k)).toList());
        assertThat(drawn.stream().mapToInt(e -> Integer.parseInt(e.getAttribute("data-extents"))).sum()).isEqualTo(used);
        ui.text(By.id("pool-capacity-bar"), "used");

        // the thin pool's page takes snapshots without a COW size (thin snapshots have none)
        post("/api/v1/pools/em-tp/volumes", "{\"name\":\"em-tv\",\"size\":\"1GiB\"}", 201);
        ui.open("#/pools/em-tp");
        ui.visible(By.id("take-snapshot-em-tv"));
        assertThat(ui.visible(By.id("snapshots-em-tv")).findElements(By.id("snapshot-size-em-tv"))).isEmpty();
        ui.open("#/pools/em-p");
        ui.visible(By.id("snapshot-size-em-v"));
    }

    @Test
    void volumesAndSnapshotsAreManagedByClickingAndTyping() throws Exception {
        disk("pl-d", "64MiB");
        ui.signIn("admin");
        ui.nav("pools");
        ui.type(By.id("pool-name"), "pl-p");
        ui.choose(By.id("pool-device"), "pl-d");
        ui.click(By.id("create-pool"));
        ui.click(By.cssSelector(".pool-row[data-name='pl-p'] a"));

        // create and resize a volume
        ui.type(By.id("volume-name"), "pl-v");
        ui.type(By.id("volume-size"), "8MiB");
        ui.click(By.id("create-volume"));
        ui.text(By.cssSelector("#volume-table tr[data-name='pl-v']"), "8 MiB");
        assertThat(this.<Integer>read(VOLUMES + "/pl-v", "$.sizeBytes")).isEqualTo(8 << 20);
        ui.type(By.id("size-pl-v"), "12MiB");
        ui.click(By.id("resize-pl-v"));
        ui.text(By.cssSelector("#volume-table tr[data-name='pl-v']"), "12 MiB");
        assertThat(this.<Integer>read(VOLUMES + "/pl-v", "$.sizeBytes")).isEqualTo(12 << 20);
        ui.visible(By.cssSelector("#extent-map .extent[data-owner='pl-v'][data-role='volume']"));
        // one volume is "1 volume" (issue 30: "1 volumes")
        ui.text(By.id("delete-pool-why"), "^the pool has 1 volume: delete it first$");
        assertThat(ui.visible(By.id("extent-map")).getAttribute("aria-label")).endsWith("used by 1 volume");

        // a bad size: the API's problem shows next to the button
        ui.type(By.id("size-pl-v"), "lots");
        ui.click(By.id("resize-pl-v"));
        ui.visible(By.id("resize-pl-v-problem"));

        // snapshots: take two, the fill gauge shows, merge one, delete the other
        ui.type(By.id("snapshot-name-pl-v"), "pl-s1");
        ui.type(By.id("snapshot-size-pl-v"), "4MiB");
        ui.click(By.id("take-snapshot-pl-v"));
        ui.visible(By.cssSelector("li.snapshot[data-name='pl-s1'] #fill-pl-s1"));
        byte[] data = new byte[1 << 20];
        assertThat(api.put("/api/v1/devices/pl-v/data?offset=0", data).statusCode()).isEqualTo(204);
        ui.until(d -> Double.parseDouble(d.findElement(By.id("fill-pl-s1")).getAttribute("aria-valuenow")) > 0);
        ui.type(By.id("snapshot-name-pl-v"), "pl-s2");
        ui.click(By.id("take-snapshot-pl-v"));
        ui.visible(By.cssSelector("li.snapshot[data-name='pl-s2']"));
        ui.screenshot("pools");
        ui.confirm(By.id("delete-pl-s2"), "pl-s2");
        ui.until(d -> d.findElements(By.cssSelector("li.snapshot[data-name='pl-s2']")).isEmpty());
        ui.confirm(By.id("merge-pl-s1-button"), "pl-s1");
        ui.until(d -> d.findElements(By.cssSelector("li.snapshot[data-name='pl-s1']")).isEmpty());
        assertThat(this.<List<String>>read(VOLUMES + "/pl-v", "$.snapshots")).isEmpty();

        // export, then delete: the delete says why it waits for the unexport
        ui.click(By.id("export-pl-v"));
        ui.text(By.cssSelector("#volume-table tr[data-name='pl-v']"), "pl-v.*pl-v");
        ui.text(By.id("delete-pl-v-why"), "unexport it first");
        ui.click(By.id("unexport-pl-v"));
        ui.confirm(By.id("delete-pl-v"), "pl-v");
        ui.until(d -> d.findElements(By.cssSelector("#volume-table tr[data-name='pl-v']")).isEmpty());
        assertThat(api.get(VOLUMES + "/pl-v").statusCode()).isEqualTo(404);
    }
}
