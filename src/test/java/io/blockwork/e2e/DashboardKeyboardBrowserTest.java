package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.support.TempDataDir;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

/**
 * A phone-sized window (390x844) and the keyboard alone: signing in, every view reached from the
 * navigation with Tab and Enter, the focused control visibly outlined, no view wider than the
 * window, an action run with Space, and the confirmation dialog closed with Escape (focus back on
 * the button that opened it) and then confirmed by typing and Enter.
 */
@Tag("browser")
class DashboardKeyboardBrowserTest extends BrowserTestBase {

    private static final List<String> VIEWS = List.of("overview", "devices", "topology", "pools", "disks", "dm", "workloads");

    private WebElement focused() {
        return ui.browser().switchTo().activeElement();
    }

    private String focusedId() {
        return String.valueOf(focused().getAttribute("id"));
    }

    /** Presses Tab until the element with {@code id} has the focus; fails if it is not reached in {@code max} presses. */
    private void tabTo(String id, int max) {
        for (int i = 0; i < max && !focusedId().equals(id); i++) {
            focused().sendKeys(Keys.TAB);
        }
        assertThat(focusedId()).as("reached by Tab").isEqualTo(id);
    }

    /** As {@link #tabTo}, backwards (Shift+Tab). */
    private void tabBackTo(String id, int max) {
        for (int i = 0; i < max && !focusedId().equals(id); i++) {
            focused().sendKeys(Keys.chord(Keys.SHIFT, Keys.TAB));
        }
        assertThat(focusedId()).as("reached by Shift+Tab").isEqualTo(id);
    }

    private void assertFocusVisible() {
        assertThat(ui.js("return getComputedStyle(document.activeElement).outlineStyle;"))
                .as("focus outline of #%s", focusedId()).isEqualTo("solid");
    }

    @AfterAll
    void normalWindow() {
        if (ui != null) {
            ui.browser().manage().window().setSize(new Dimension(1280, 800));
        }
    }

    @Test
    void everyViewAndTheMainActionsWorkFromTheKeyboardInANarrowWindow() throws Exception {
        ui.browser().manage().window().setSize(new Dimension(390, 844));
        ui.browser().get(api.baseUrl() + "/");
        ui.js("sessionStorage.clear();");
        ui.browser().navigate().refresh();
        ui.visible(By.id("user"));

        // sign in: Tab to the fields, Enter submits
        ui.js("document.activeElement?.blur();");
        tabTo("user", 5);
        assertFocusVisible();
        tabTo("password", 3);
        focused().sendKeys(TempDataDir.ADMIN_PASSWORD, Keys.ENTER);
        ui.text(By.id("connection"), "live");

        // every view from the navigation: Tab to its link, Enter; nothing wider than the window
        for (String view : VIEWS) {
            tabTo("nav-" + view, 40);
            assertFocusVisible();
            focused().sendKeys(Keys.ENTER);
            ui.until(d -> ("#/" + view).equals(ui.js("return location.hash;")));
            ui.visible(By.cssSelector("main section.card"));
            assertThat(ui.visible(By.id("nav-" + view)).getAttribute("aria-current")).isEqualTo("page");
            assertThat(ui.js("""
                    return document.documentElement.scrollWidth <= window.innerWidth ? "fits" : [...document.querySelectorAll("body *")]
                      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
                      .slice(0, 5).map((e) => `${e.tagName}#${e.id}.${e.className}`).join(", ");"""))
                    .as("#/%s fits 390 px (else: what sticks out)", view).isEqualTo("fits");
        }

        // back to #/disks (Shift+Tab); fill the form with the keyboard and press Space on the button
        // (the other browser tests' disks may lie between, each row with its buttons)
        tabBackTo("nav-disks", 5);
        focused().sendKeys(Keys.ENTER);
        ui.until(d -> "#/disks".equals(ui.js("return location.hash;")));
        tabTo("disk-name", 500);
        focused().sendKeys("kb-d");
        tabTo("disk-size", 5);
        focused().sendKeys("8MiB");
        tabTo("create-disk", 15);
        assertFocusVisible();
        focused().sendKeys(Keys.SPACE);
        ui.visible(By.cssSelector("#disk-table tr[data-name='kb-d']"));
        assertThat(api.get("/api/v1/disks/kb-d").statusCode()).isEqualTo(200);

        // delete: Enter opens the dialog with the name field focused; Escape closes it, nothing deleted
        tabBackTo("delete-disk-kb-d", 500);
        focused().sendKeys(Keys.ENTER);
        ui.visible(By.id("confirm"));
        assertThat(focusedId()).isEqualTo("confirm-name");
        focused().sendKeys(Keys.ESCAPE);
        ui.until(d -> d.findElements(By.id("confirm")).isEmpty());
        assertThat(focusedId()).as("focus back on the button").isEqualTo("delete-disk-kb-d");
        assertThat(api.get("/api/v1/disks/kb-d").statusCode()).isEqualTo(200);

        // and again: type the name, Tab to the confirming button, Enter
        focused().sendKeys(Keys.ENTER);
        ui.visible(By.id("confirm-name")).sendKeys("kb-d");
        tabTo("confirm-ok", 3);
        assertFocusVisible();
        focused().sendKeys(Keys.ENTER);
        ui.until(d -> d.findElements(By.cssSelector("#disk-table tr[data-name='kb-d']")).isEmpty());
        assertThat(api.get("/api/v1/disks/kb-d").statusCode()).isEqualTo(404);
    }
}
