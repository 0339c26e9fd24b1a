package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/** The topology graph on a raid10 and a raid0 stack, and the blast radius of a disk chosen by clicking it. */
@Tag("browser")
class DashboardTopologyBrowserTest extends BrowserTestBase {

    @Test
    void selectingADiskMarksWhatWouldLoseRedundancyAndWhatWouldLoseData() throws Exception {
        for (String d : new String[] {"top-1", "top-2", "top-3", "top-4", "top-5", "top-6"}) {
            disk(d, "8MiB");
        }
        post("/api/v1/arrays", "{\"name\":\"top-r10\",\"level\":\"10\",\"assumeClean\":true,"
                + "\"members\":[\"top-1\",\"top-2\",\"top-3\",\"top-4\"]}", 201);
        post("/api/v1/arrays", "{\"name\":\"top-r0\",\"level\":\"0\",\"members\":[\"top-5\",\"top-6\"]}", 201);
        post("/api/v1/pools", "{\"name\":\"top-p10\",\"device\":\"top-r10\",\"extentSize\":\"1MiB\"}", 201);
        post("/api/v1/pools", "{\"name\":\"top-p0\",\"device\":\"top-r0\",\"extentSize\":\"1MiB\"}", 201);
        post("/api/v1/pools/top-p10/volumes", "{\"name\":\"top-v10\",\"size\":\"4MiB\"}", 201);
        post("/api/v1/pools/top-p0/volumes", "{\"name\":\"top-v0\",\"size\":\"4MiB\"}", 201);

        ui.signIn("admin");
        ui.nav("topology");
        ui.click(By.cssSelector("g.node[data-id='top-1']"));
        ui.text(By.id("blast-data"), "^nothing$");
        assertThat(ui.text(By.id("blast-redundancy"), "top-v10")).contains("top-r10", "pool:top-p10").doesNotContain("top-v0");
        ui.until(d -> d.findElement(By.cssSelector("g.node[data-id='top-v10']")).getAttribute("class").contains("loses-redundancy"));
        ui.screenshot("topology");

        ui.click(By.cssSelector("g.node[data-id='top-5']"));
        assertThat(ui.text(By.id("blast-data"), "top-v0")).contains("top-r0", "pool:top-p0").doesNotContain("top-v10");
        ui.text(By.id("blast-redundancy"), "^nothing$");
        ui.until(d -> d.findElement(By.cssSelector("g.node[data-id='top-v0']")).getAttribute("class").contains("loses-data"));

        // the selection is in the URL, and a degraded array is coloured so
        assertThat(ui.browser().getCurrentUrl()).endsWith("#/topology/top-5");
        post("/api/v1/arrays/top-r10/members/top-2/fail", "", 200);
        ui.until(d -> d.findElement(By.cssSelector("g.node[data-id='top-r10']")).getAttribute("class").contains("health-degraded"));
    }
}
