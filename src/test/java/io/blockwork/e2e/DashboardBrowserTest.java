package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.support.TempDataDir;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ContextConfiguration;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in headless Chromium (Debian's chromium and chromium-driver, given explicitly so
 * Selenium Manager never runs): sign in as admin, see the version and a disk made through the API.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ContextConfiguration(initializers = TempDataDir.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("browser")
class DashboardBrowserTest {

    @LocalServerPort
    int port;

    private ServiceClient service;
    private Path profile;
    private WebDriver browser;

    @BeforeAll
    void start() throws IOException {
        service = new ServiceClient("http://127.0.0.1:" + port);
        profile = Files.createTempDirectory("blockwork-chrome-profile");
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-quic", "--user-data-dir=" + profile);
        ChromeDriverService driver = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        browser = new ChromeDriver(driver, options);
    }

    @AfterAll
    void stop() throws IOException {
        try {
            if (browser != null) {
                browser.quit();
            }
        } finally {
            if (service != null) {
                service.close();
            }
            deleteTree(profile);
        }
    }

    @Test
    void adminSignsInAndSeesTheVersionAndADiskMadeThroughTheApi() throws Exception {
        assertThat(service.postJson("/api/v1/disks", "{\"name\":\"browser-disk\",\"type\":\"memory\",\"size\":\"2GiB\"}")
                .statusCode()).isEqualTo(201);
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        browser.get(service.baseUrl() + "/");

        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("password")))
                .sendKeys(TempDataDir.ADMIN_PASSWORD);
        browser.findElement(By.id("user")).clear();
        browser.findElement(By.id("user")).sendKeys("admin");
        browser.findElement(By.id("sign-in-button")).click();

        wait.until(ExpectedConditions.textMatches(By.id("version"), Pattern.compile("version \\S+")));
        String row = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#devices tr[data-name='browser-disk']"))).getText();
        assertThat(row).contains("browser-disk", "disk", "2 GiB", "active");
        Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(shot, Path.of("target", "dashboard.png"), StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void aWrongPasswordShowsTheFormAgainWithAMessage() {
        browser.get(service.baseUrl() + "/");
        browser.manage().deleteAllCookies();
        ((JavascriptExecutor) browser).executeScript("sessionStorage.clear(); location.reload();");
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("password"))).sendKeys("wrong");
        browser.findElement(By.id("sign-in-button")).click();
        wait.until(ExpectedConditions.textMatches(By.cssSelector("#sign-in .error"), Pattern.compile("not accepted")));
    }

    private static void deleteTree(Path root) throws IOException {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
