package io.blockwork.e2e;

import io.blockwork.support.TempDataDir;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in headless Chromium at 1280x800 (Debian's chromium and chromium-driver, given
 * explicitly so Selenium Manager never runs), driven as a user drives it: by clicking and typing.
 * Every wait is on a condition; screenshots go to {@code target/dashboard/} (the committed ones
 * in docs/dashboard/ are copies).
 */
final class Dashboard implements AutoCloseable {

    static final Path SCREENSHOTS = Path.of("target", "dashboard");

    private final String base;
    private final Path profile;
    private final WebDriver browser;
    private final WebDriverWait wait;

    Dashboard(String baseUrl) {
        this.base = baseUrl;
        try {
            profile = Files.createTempDirectory("blockwork-chrome-profile");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-quic", "--window-size=1280,800", "--user-data-dir=" + profile);
        ChromeDriverService driver = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        browser = new ChromeDriver(driver, options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(30));
    }

    WebDriver browser() {
        return browser;
    }

    void signIn(String user) {
        String password = user.equals("admin") ? TempDataDir.ADMIN_PASSWORD : TempDataDir.VIEWER_PASSWORD;
        browser.get(base + "/");
        js("sessionStorage.clear();");
        browser.navigate().refresh();
        WebElement name = visible(By.id("user"));
        name.clear();
        name.sendKeys(user);
        visible(By.id("password")).sendKeys(password);
        browser.findElement(By.id("sign-in-button")).click();
        text(By.id("connection"), "live");
    }

    /** Follows a link in the navigation bar, as a user would. */
    void nav(String view) {
        click(By.id("nav-" + view));
    }

    /** Opens a shareable URL (#/devices/md0 …) in the same page. */
    void open(String route) {
        js("location.hash = arguments[0];", route);
    }

    WebElement visible(By by) {
        return wait.until(ExpectedConditions.visibilityOfElementLocated(by));
    }

    void click(By by) {
        wait.until(ExpectedConditions.elementToBeClickable(by)).click();
    }

    void type(By by, String text) {
        WebElement e = visible(by);
        e.clear();
        e.sendKeys(text);
    }

    void choose(By by, String option) {
        wait.until(d -> new Select(d.findElement(by)).getOptions().stream().anyMatch(o -> o.getText().startsWith(option)));
        Select select = new Select(browser.findElement(by));
        select.getOptions().stream().filter(o -> o.getText().startsWith(option)).findFirst().orElseThrow().click();
    }

    /** Waits until the element's text matches {@code regex} (found anywhere in it). */
    String text(By by, String regex) {
        wait.until(ExpectedConditions.textMatches(by, Pattern.compile(regex, Pattern.DOTALL)));
        return browser.findElement(by).getText();
    }

    <T> T until(ExpectedCondition<T> condition) {
        return wait.until(condition);
    }

    /** As {@link #until}, for what takes longer than the usual 30 s (an experiment's two runs). */
    <T> T until(Duration timeout, ExpectedCondition<T> condition) {
        return new WebDriverWait(browser, timeout).until(condition);
    }

    List<WebElement> all(By by) {
        return browser.findElements(by);
    }

    Object js(String script, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(script, args);
    }

    /** Runs an async script; it calls its last argument with the result. */
    Object jsAsync(String script) {
        return ((JavascriptExecutor) browser).executeAsyncScript(script);
    }

    /** Clicks an action that asks for confirmation, types the name and confirms. */
    void confirm(By action, String name) {
        click(action);
        type(By.id("confirm-name"), name);
        click(By.id("confirm-ok"));
        wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("confirm")));
    }

    void screenshot(String name) {
        try {
            Files.createDirectories(SCREENSHOTS);
            Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
            Files.copy(shot, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            browser.quit();
        } finally {
            if (Files.exists(profile)) {
                try (Stream<Path> paths = Files.walk(profile)) {
                    for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }
}
