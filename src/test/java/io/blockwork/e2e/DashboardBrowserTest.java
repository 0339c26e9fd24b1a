package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The shell: signing in, the device table (health, not start-up state; hidden devices left out),
 * shareable URLs, live updates from the event stream, and the connection indicator when the
 * stream drops and comes back.
 */
@Tag("browser")
class DashboardBrowserTest extends BrowserTestBase {

    @Test
    void theDeviceTableShowsHealthAndOnlyTheUsersDevices() throws Exception {
        disk("shell-d1", "16MiB");
        disk("shell-d2", "16MiB");
        post("/api/v1/arrays", "{\"name\":\"shell-md\",\"level\":\"1\",\"assumeClean\":true,"
                + "\"members\":[\"shell-d1\",\"shell-d2\"]}", 201);
        post("/api/v1/arrays/shell-md/members/shell-d2/fail", "", 200);
        post("/api/v1/pools", "{\"name\":\"shell-p\",\"device\":\"shell-md\",\"extentSize\":\"1MiB\"}", 201);
        post("/api/v1/pools/shell-p/volumes", "{\"name\":\"shell-v\",\"size\":\"4MiB\"}", 201);
        post("/api/v1/pools/shell-p/volumes/shell-v/snapshots", "{\"name\":\"shell-s\",\"size\":\"2MiB\"}", 201);

        ui.signIn("admin");
        ui.text(By.id("version"), "version \\S+");
        ui.nav("devices");
        assertThat(ui.text(By.cssSelector("#devices tr[data-name='shell-md'] td.state"), "degraded")).contains("degraded");
        assertThat(ui.text(By.cssSelector("#devices tr[data-name='shell-d2'] td.state"), "faulty")).contains("faulty");
        assertThat(ui.text(By.cssSelector("#devices tr[data-name='shell-d1']"), "ok")).contains("shell-d1", "disk", "16 MiB");
        ui.visible(By.cssSelector("#devices tr[data-name='shell-s']"));
        List<String> names = ui.all(By.cssSelector("#devices tbody tr")).stream().map(r -> r.getAttribute("data-name")).toList();
        assertThat(names).contains("shell-v", "shell-s").noneMatch(n -> n.endsWith("-real") || n.endsWith("-cow"));
        ui.screenshot("devices");

        // a shareable URL: a reload of #/devices/shell-md opens the same page
        ui.click(By.cssSelector("#devices tr[data-name='shell-md'] a"));
        ui.until(ExpectedConditions.urlContains("#/devices/shell-md"));
        ui.browser().navigate().refresh();
        ui.text(By.id("device-health"), "degraded");
    }

    @Test
    void thePageFollowsTheEventStreamAndRecoversWhenItDrops() throws Exception {
        ui.signIn("admin");
        ui.nav("devices");
        ui.visible(By.id("devices-card"));
        disk("live-d1", "4MiB");
        // an update within 2 s of the change, without a reload
        new WebDriverWait(ui.browser(), Duration.ofSeconds(2))
                .until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#devices tr[data-name='live-d1']")));

        ui.js("window.blockwork.store.dropStream()");
        ui.text(By.id("connection"), "disconnected");
        disk("live-d2", "4MiB"); // while the stream is down: polling, then the resumed stream, bring it
        ui.visible(By.cssSelector("#devices tr[data-name='live-d2']"));
        ui.text(By.id("connection"), "^live$");
        disk("live-d3", "4MiB");
        new WebDriverWait(ui.browser(), Duration.ofSeconds(2))
                .until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#devices tr[data-name='live-d3']")));
    }

    @Test
    void theTotalRateCountsEachRequestOnceNotAtEveryLayer() {
        ui.signIn("admin");
        // a volume (top) on an array on two disks: 100 reads/s go through all three layers
        Object total = ui.jsAsync("""
                const done = arguments[arguments.length - 1];
                import('/js/views/overview.js').then((m) => done(m.totalOfTops([
                  {device: 'v', top: true, samples: [{time: 5, readIops: 100, writeIops: 10}]},
                  {device: 'md', top: false, samples: [{time: 5, readIops: 100, writeIops: 20}]},
                  {device: 'd1', top: false, samples: [{time: 5, readIops: 50, writeIops: 10}]},
                  {device: 'd2', top: false, samples: [{time: 5, readIops: 50, writeIops: 10}]}]).reads));""");
        assertThat(((Number) total).doubleValue()).isEqualTo(100.0);
    }

    @Test
    void aWrongPasswordShowsTheFormAgainWithAMessage() {
        ui.browser().get(api.baseUrl() + "/");
        ui.js("sessionStorage.clear();");
        ui.browser().navigate().refresh();
        ui.visible(By.id("password")).sendKeys("wrong");
        ui.click(By.id("sign-in-button"));
        ui.text(By.cssSelector("#sign-in .error"), "not accepted");
    }
}
