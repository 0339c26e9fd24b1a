package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The must-fail twin of {@link CrashSuiteTest}: its verifier does catch an orphan image, a lost
 * durable block and a lost acknowledged change, and passes again once the damage is undone. The
 * service stays up here; the damage is done behind the driver's back, as a crash would do it.
 */
@Tag("api")
class CrashVerifierTest {

    @Test
    void theVerifierCatchesAnOrphanImageALostBlockAndALostVolume() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        try (RunningService service = RunningService.start(dataDir)) {
            ServiceClient api = service.client();
            CrashDriver driver = new CrashDriver(new Random(7));
            driver.setUp(api);
            while (driver.model().volumes.isEmpty()
                    || driver.model().volumes.keySet().stream().allMatch(v -> driver.model().blocksOf(v).isEmpty())) {
                driver.run(api, 10);
            }
            assertThat(driver.failure()).isNull();
            driver.verify(api, dataDir);

            Path orphan = dataDir.resolve("disks/left-behind.img");
            Files.write(orphan, new byte[512]);
            assertThatThrownBy(() -> driver.verify(api, dataDir)).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("left-behind");
            Files.delete(orphan);
            driver.verify(api, dataDir);

            String volume = driver.model().volumes.keySet().stream()
                    .filter(v -> !driver.model().blocksOf(v).isEmpty()).findFirst().orElseThrow();
            Map.Entry<Long, byte[]> block = driver.model().blocksOf(volume).firstEntry();
            String path = "/api/v1/devices/" + volume + "/data?fua=true&offset=" + block.getKey() * CrashDriver.BLOCK;
            assertThat(api.put(path, new byte[CrashDriver.BLOCK]).statusCode()).isEqualTo(204);
            assertThatThrownBy(() -> driver.verify(api, dataDir)).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("block " + block.getKey() + " of " + volume);
            assertThat(api.put(path, block.getValue()).statusCode()).isEqualTo(204);
            driver.verify(api, dataDir);

            assertThat(api.delete("/api/v1/pools/p/volumes/" + volume + "?force=true").statusCode()).isEqualTo(204);
            assertThatThrownBy(() -> driver.verify(api, dataDir)).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("neither what was acknowledged").hasMessageContaining("volume " + volume);
        }
    }
}
