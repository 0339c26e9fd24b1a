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
        ui.visible(By.cssSelector("#extent-map .extent[data-volume='pl-v']"));
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
