package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.support.TempDataDir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 13, acceptance 1: the service process is killed with SIGKILL at random points while
 * {@link CrashDriver} runs management operations and durable writes; after every restart, every
 * acknowledged change and durable write is there, the change in flight is whole or absent, no
 * orphan image or extent is left and start-up assembly is clean.
 *
 * <p>{@code verify} runs 50 kill points (a few minutes, mostly service start-ups). A longer run:
 * {@code mvn -B -ntp test -Dtest=CrashSuiteTest -Dblockwork.crash.points=500}; a failing run is
 * repeated with {@code -Dblockwork.crash.seed=<the seed it printed>}. Each run's service logs
 * and summary are kept under {@code target/crash-suite/<seed>/}.
 */
class CrashSuiteTest {

    private static final int POINTS = Integer.getInteger("blockwork.crash.points", 50);
    /** Kills land this long after the driver starts, uniformly: a few to a few dozen operations. */
    private static final long MIN_DELAY_MILLIS = 30;
    private static final long MAX_DELAY_MILLIS = 1500;

    @Test
    void acknowledgedChangesAndDurableWritesSurviveKillNine() throws Exception {
        long seed = Long.getLong("blockwork.crash.seed", System.nanoTime());
        Random random = new Random(seed);
        Path runDir = Path.of("target", "crash-suite", Long.toString(seed)).toAbsolutePath();
        Files.createDirectories(runDir);
        Path dataDir = TempDataDir.newDataDir();
        System.out.println("crash suite: seed " + seed + ", " + POINTS + " kill points, logs in " + runDir);

        Instant started = Instant.now();
        ServiceProcess.Launcher launcher = ServiceProcess.Launcher.prepare();
        Duration preparing = Duration.between(started, Instant.now());
        CrashDriver driver = new CrashDriver(random);
        ServiceProcess service = ServiceProcess.start(launcher, dataDir, runDir.resolve("start-0.log"));
        driver.setUp(service.client());
        try (ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor()) {
            for (int point = 1; point <= POINTS; point++) {
                ServiceProcess victim = service;
                long delay = MIN_DELAY_MILLIS + random.nextLong(MAX_DELAY_MILLIS - MIN_DELAY_MILLIS);
                ScheduledFuture<?> kill = killer.schedule(victim::kill, delay, TimeUnit.MILLISECONDS);
                driver.runUntilGone(victim.client());
                if (driver.failure() != null) {
                    kill.cancel(false);
                    victim.kill();
                    throw new AssertionError("kill point " + point + ": " + driver.failure() + "\nservice log:\n"
                            + ServiceProcess.tail(victim.log()));
                }
                kill.get();
                driver.countOrphans(dataDir);
                service = ServiceProcess.start(launcher, dataDir, runDir.resolve("start-" + point + ".log"));
                try {
                    driver.verify(service.client(), dataDir);
                } catch (AssertionError e) {
                    service.kill();
                    throw new AssertionError("kill point " + point + " (seed " + seed + ", " + delay + " ms in): "
                            + e.getMessage() + "\nlog of the restart: " + service.log(), e);
                }
            }
        } finally {
            service.close();
        }

        Duration total = Duration.between(started, Instant.now());
        String summary = "crash suite " + Instant.now() + ": " + POINTS + " kill points (SIGKILL), 0 losses; "
                + driver.summary() + "; seed " + seed + "; " + total.toSeconds() + " s (" + preparing.toSeconds()
                + " s preparing the AOT cache)";
        System.out.println(summary);
        System.out.println("BENCH_JSON {\"suite\":\"crash\",\"killPoints\":" + POINTS + ",\"losses\":0"
                + ",\"acknowledgedChanges\":" + driver.acknowledgedChanges() + ",\"inFlightAtKill\":"
                + driver.inFlightAtKills() + ",\"blocksVerified\":" + driver.blocksVerified()
                + ",\"orphansSwept\":" + driver.orphansSwept() + ",\"seconds\":" + total.toSeconds() + "}");
        Files.writeString(runDir.resolve("summary.txt"), summary + "\n", StandardCharsets.UTF_8);
        assertThat(driver.acknowledgedChanges()).as("the driver got changes acknowledged").isGreaterThan(POINTS);
    }
}
