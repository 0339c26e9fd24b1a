package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An image file no disk owns is what a crash leaves between creating a file disk's image and
 * committing its row (or between committing a delete and removing the image). Start-up moves it
 * into {@code disks/lost+found/} (never deletes it: it may be an image a user brought to adopt),
 * so it does not block the name; images of configured disks are kept.
 */
@Tag("api")
class OrphanImageTest {

    @Test
    void startUpMovesImagesNoDiskOwnsToLostAndFoundAndTheNameIsFreeAgain() throws Exception {
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
            try (var found = Files.list(disks.resolve("lost+found"))) {
                assertThat(found.map(f -> f.getFileName().toString()).toList())
                        .singleElement().asString().startsWith("orphan-").endsWith(".img");
            }
            assertThat(disks.resolve("kept.img")).exists();
            assertThat(disks.resolve("notes.txt")).as("only images are the service's to move").exists();
            assertThat(client.postJson("/api/v1/disks", "{\"name\":\"orphan\",\"type\":\"file\",\"size\":\"1MiB\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(client.get("/api/v1/system/assembly").body()).doesNotContain("failed");
        }
    }
}
