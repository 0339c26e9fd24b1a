package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An image file no disk owns is what a crash leaves between creating a file disk's image and
 * committing its row (or between committing a delete and removing the image). Start-up removes
 * it, so it neither lingers nor blocks the name; images of configured disks are kept.
 */
@Tag("api")
class OrphanImageTest {

    @Test
    void startUpRemovesImagesNoDiskOwnsAndTheNameIsFreeAgain() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        try (RunningService running = RunningService.start(dataDir)) {
            assertThat(running.client().postJson("/api/v1/disks",
                    "{\"name\":\"kept\",\"type\":\"file\",\"size\":\"1MiB\"}").statusCode()).isEqualTo(201);
        }
        Path disks = dataDir.resolve("disks");
        Files.write(disks.resolve("orphan.img"), new byte[4096]);
        Files.write(disks.resolve("notes.txt"), new byte[1]);

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient client = running.client();
            assertThat(disks.resolve("orphan.img")).doesNotExist();
            assertThat(disks.resolve("kept.img")).exists();
            assertThat(disks.resolve("notes.txt")).as("only images are the service's to remove").exists();
            assertThat(client.postJson("/api/v1/disks", "{\"name\":\"orphan\",\"type\":\"file\",\"size\":\"1MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(client.get("/api/v1/system/assembly").body()).doesNotContain("failed");
        }
    }
}
