package io.blockwork.shared.openapi;

import io.blockwork.support.TempDataDir;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A data directory in memory (tmpfs, {@code /dev/shm}) where the machine has one, for a suite
 * that makes thousands of management changes and is not about their durability: each change
 * ends with an fsync of the configuration database, which on a busy disk costs more than the
 * request. Elsewhere an ordinary test data directory.
 */
final class FastDataDir {

    private static final Path TMPFS = Path.of("/dev/shm");

    private FastDataDir() {}

    static Path create() throws IOException {
        if (Files.isDirectory(TMPFS) && Files.isWritable(TMPFS)) {
            return Files.createTempDirectory(TMPFS, "blockwork-test-");
        }
        return TempDataDir.newDataDir();
    }

    /** Removes a directory {@link #create} made in memory; an ordinary one stays with the build's other test data. */
    static void delete(Path dir) {
        if (!dir.startsWith(TMPFS)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
