package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.shared.security.SignInThrottle;
import io.blockwork.support.TempDataDir;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.springframework.beans.factory.annotation.Autowired;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The shell: signing in, the device table (health, not start-up state; hidden devices left out),
 * shareable URLs, live updates from the event stream, and the connection indicator when the
 * stream drops and comes back.
 */
@Tag("browser")
class DashboardBrowserTest extends BrowserTestBase {

    @Autowired
    SignInThrottle throttle;

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

    /**
     * Issue 30: a chart of a few seconds (the overview's, just opened) labelled its time axis in
     * quarter seconds; the series are per second, so the ticks are too. The labels are read as
     * uPlot draws them on the canvas.
     */
    @Test
    void aChartOfAFewSecondsLabelsWholeSecondsOnly() {
        ui.signIn("admin");
        List<?> drawn = (List<?>) ui.jsAsync("""
                const done = arguments[arguments.length - 1];
                const drawn = [];
                const fillText = CanvasRenderingContext2D.prototype.fillText;
                CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
                  if (this.canvas.closest('#tick-probe')) drawn.push(String(text));
                  return fillText.call(this, text, ...rest);
                };
                Promise.all([import('preact'), import('/js/html.js'), import('/js/charts.js')]).then(([p, { html }, { TimeChart }]) => {
                  const box = document.createElement('div');
                  box.id = 'tick-probe';
                  box.style.width = '560px';
                  document.body.append(box);
                  const t0 = 1700000000;
                  p.render(html`<${TimeChart} id="probe-chart" series=${['reads/s']}
                    data=${[[t0, t0 + 1, t0 + 2, t0 + 3], [1, 2, 3, 4]]} />`, box);
                  const started = Date.now();
                  const check = () => {
                    if (drawn.some((t) => t.includes(':')) || Date.now() - started > 20000) {
                      CanvasRenderingContext2D.prototype.fillText = fillText;
                      p.render(null, box);
                      box.remove();
                      done(drawn);
                    } else {
                      requestAnimationFrame(check);
                    }
                  };
                  check();
                });""");
        List<String> times = drawn.stream().map(String::valueOf).filter(t -> t.contains(":")).toList();
        assertThat(times).as("time labels drawn, of %s", drawn).hasSizeGreaterThanOrEqualTo(2)
                .noneMatch(t -> t.matches(".*\\d\\.\\d.*"));
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

    /**
     * Five wrong passwords typed into the sign-in form hold this browser's address back (429 with
     * Retry-After, said on the form); a client on another address signs in with the right password
     * as usual. The throttle is cleared before and after: the browser tests share one service.
     */
    @Test
    void repeatedWrongPasswordsHoldThisClientBackButNoOther() throws Exception {
        throttle.clear();
        try {
            ui.browser().get(api.baseUrl() + "/");
            ui.js("sessionStorage.clear();");
            ui.browser().navigate().refresh();
            for (int i = 0; i < 5; i++) {
                ui.type(By.id("password"), "wrong-" + i);
                ui.click(By.id("sign-in-button"));
                // a refused password is cleared from the field, so its emptiness marks the answer
                ui.until(d -> d.findElement(By.id("password")).getDomProperty("value").isEmpty());
                ui.text(By.cssSelector("#sign-in .error"), "not accepted");
            }
            ui.type(By.id("password"), TempDataDir.ADMIN_PASSWORD);
            ui.click(By.id("sign-in-button"));
            assertThat(ui.text(By.cssSelector("#sign-in .error"), "try again in")).contains("failed sign-ins");

            try (HttpClient other = HttpClient.newBuilder().localAddress(InetAddress.getByName("127.0.0.2")).build()) {
                String basic = Base64.getEncoder().encodeToString(("admin:" + TempDataDir.ADMIN_PASSWORD)
                        .getBytes(StandardCharsets.UTF_8));
                HttpResponse<String> fromOther = other.send(HttpRequest.newBuilder(URI.create(api.baseUrl() + "/api/v1/system"))
                        .header("Authorization", "Basic " + basic).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(fromOther.statusCode()).as("another client: %s", fromOther.body()).isEqualTo(200);
            }
            HttpResponse<String> fromThis = api.get("/api/v1/system");
            assertThat(fromThis.statusCode()).as("this client, even with the right password").isEqualTo(429);
            assertThat(fromThis.headers().firstValue("Retry-After")).isPresent();
        } finally {
            throttle.clear();
        }
    }
}
