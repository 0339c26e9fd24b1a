package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;

/** Disks (create, fault toggles, power cut), dm tables (an error on its line), workloads and experiments. */
@Tag("browser")
class DashboardDevicesBrowserTest extends BrowserTestBase {

    @Test
    void disksAreCreatedFaultedAndPowerCut() throws Exception {
        ui.signIn("admin");
        ui.nav("disks");
        ui.type(By.id("disk-name"), "dv-wb");
        ui.type(By.id("disk-size"), "8MiB");
        ui.choose(By.id("disk-cache"), "writeback");
        ui.type(By.id("disk-write-latency"), "50us");
        ui.click(By.id("create-disk"));
        ui.text(By.cssSelector("#disk-table tr[data-name='dv-wb']"), "writeback");
        assertThat(this.<String>read("/api/v1/disks/dv-wb", "$.cache")).isEqualTo("writeback");

        ui.click(By.id("failWrites-dv-wb"));
        ui.text(By.cssSelector("#disk-table tr[data-name='dv-wb']"), "faulty");
        assertThat(this.<Boolean>read("/api/v1/disks/dv-wb", "$.faults.failWrites")).isTrue();
        ui.click(By.id("failWrites-dv-wb"));
        ui.until(d -> {
            try {
                return !this.<Boolean>read("/api/v1/disks/dv-wb", "$.faults.failWrites");
            } catch (Exception e) {
                return false;
            }
        });

        // the power cut names what it loses and wants the name typed
        ui.click(By.id("power-cut-dv-wb"));
        assertThat(ui.text(By.id("confirm-removes"), "not yet made durable")).contains("dv-wb");
        assertThat(ui.visible(By.id("confirm-ok")).isEnabled()).isFalse();
        ui.type(By.id("confirm-name"), "dv-wb");
        ui.screenshot("disks");
        ui.click(By.id("confirm-ok"));
        ui.until(d -> d.findElements(By.id("confirm")).isEmpty());
        disk("dv-wt", "8MiB");
        ui.text(By.id("power-cut-dv-wt-why"), "only a writeback memory disk");
    }

    @Test
    void aBadTableLineIsShownOnItsLineThenAGoodTableLoads() throws Exception {
        disk("dv-under", "8MiB");
        ui.signIn("admin");
        ui.nav("dm");
        ui.type(By.id("dm-name"), "dv-lin");
        ui.type(By.id("dm-create-text"), "0 8192 linear dv-under 0");
        ui.visible(By.id("dm-create-text")).sendKeys(Keys.ENTER, "8192 8192 linear no-such-device 0");
        ui.click(By.id("dm-create-button"));
        assertThat(ui.text(By.cssSelector("#dm-create-lines li.bad-line"), "no-such-device"))
                .contains("no-such-device");
        assertThat(ui.visible(By.cssSelector("#dm-create-lines li.bad-line")).getAttribute("data-line")).isEqualTo("2");
        assertThat(api.get("/api/v1/dm/devices/dv-lin").statusCode()).isEqualTo(404);
        ui.screenshot("dm");

        ui.type(By.id("dm-create-text"), "0 8192 linear dv-under 0");
        ui.click(By.id("dm-create-button"));
        ui.visible(By.cssSelector("#dm-table tr[data-name='dv-lin']"));
        assertThat(this.<String>read("/api/v1/dm/devices/dv-lin", "$.table")).contains("linear");
    }

    @Test
    void aWorkloadIsStartedWatchedAndCancelled() throws Exception {
        disk("dv-wl", "64MiB");
        ui.signIn("admin");
        ui.nav("workloads");
        ui.choose(By.id("workload-device"), "dv-wl");
        ui.choose(By.id("workload-rw"), "randread");
        ui.type(By.id("workload-runtime"), "60s");
        ui.click(By.id("start-workload"));
        ui.text(By.cssSelector("#workload-table tr[data-device='dv-wl'] .workload-state"), "running");
        String id = ui.visible(By.cssSelector("#workload-table tr[data-device='dv-wl']")).getAttribute("data-id");
        ui.screenshot("workloads");
        ui.click(By.id("cancel-workload-" + id));
        ui.until(d -> {
            try {
                return !"running".equals(this.<String>read("/api/v1/workloads/" + id, "$.state"));
            } catch (Exception e) {
                return false;
            }
        });
        ui.text(By.id("cancel-workload-" + id + "-why"), "it has");
    }
}
