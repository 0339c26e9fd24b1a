package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/** The viewer sees every page with every action disabled, saying why; a forged change is refused with 403. */
@Tag("browser")
class DashboardViewerBrowserTest extends BrowserTestBase {

    @Test
    void theViewerFindsNoEnabledActionAndAForgedOneIs403() throws Exception {
        disk("vw-d1", "8MiB");
        disk("vw-d2", "8MiB");
        post("/api/v1/arrays", "{\"name\":\"vw-md\",\"level\":\"1\",\"assumeClean\":true,\"members\":[\"vw-d1\",\"vw-d2\"]}", 201);
        post("/api/v1/pools", "{\"name\":\"vw-p\",\"device\":\"vw-md\",\"extentSize\":\"1MiB\"}", 201);
        post("/api/v1/pools/vw-p/volumes", "{\"name\":\"vw-v\",\"size\":\"2MiB\"}", 201);
        post("/api/v1/pools/vw-p/volumes/vw-v/snapshots", "{\"name\":\"vw-s\",\"size\":\"1MiB\"}", 201);

        ui.signIn("viewer");
        ui.text(By.id("who"), "read only");
        for (String route : new String[] {"#/overview", "#/devices", "#/devices/vw-md", "#/devices/vw-d1", "#/topology/vw-d1",
                "#/pools", "#/pools/vw-p", "#/disks", "#/dm", "#/workloads"}) {
            ui.open(route);
            ui.until(d -> !d.findElements(By.cssSelector("main .card")).isEmpty());
            ui.until(d -> !d.findElements(By.cssSelector("main h2")).isEmpty());
            List<WebElement> enabled = ui.all(By.cssSelector("main button:not([disabled]), main input[type=checkbox]:not([disabled])"));
            assertThat(enabled).as("enabled controls on %s", route).isEmpty();
        }
        ui.open("#/devices/vw-md");
        ui.text(By.id("fail-vw-d1-why"), "viewer: read only");
        ui.open("#/pools/vw-p");
        ui.text(By.id("delete-vw-v-why"), "viewer: read only");
        ui.screenshot("viewer");

        // the same request the admin's button sends, forged with the viewer's credentials
        Object status = ui.jsAsync("""
                const done = arguments[arguments.length - 1];
                fetch('/api/v1/arrays/vw-md/members/vw-d1/fail', {method: 'POST', headers: {
                  'Authorization': 'Basic ' + sessionStorage.getItem('blockwork.credentials'),
                  'X-Requested-With': 'blockwork-dashboard'}}).then((r) => done(r.status));""");
        assertThat(((Number) status).intValue()).isEqualTo(403);
        assertThat(this.<List<String>>read("/api/v1/arrays/vw-md", "$.members[?(@.device == 'vw-d1')].state"))
                .containsExactly("in_sync");
    }
}
