package io.blockwork.shared.security;

import io.blockwork.BlockworkProperties;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The passwords of the built-in users. A configured password (environment or property) wins;
 * otherwise the one kept in {@code <data-dir>/credentials.properties}; otherwise a new random one
 * is generated, logged once, and kept there (mode 0600) for later starts.
 */
final class UserPasswords {

    static final String FILE_NAME = "credentials.properties";
    private static final System.Logger LOG = System.getLogger(UserPasswords.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();

    private UserPasswords() {}

    /**
     * @param passwords user name → password, for {@code admin} and {@code viewer}
     * @param generatedFor the users whose password was generated (and logged) by this call
     */
    record Resolved(Map<String, String> passwords, List<String> generatedFor) {}

    static Resolved resolve(BlockworkProperties properties) {
        Map<String, String> configured = new LinkedHashMap<>();
        configured.put("admin", properties.security().adminPassword());
        configured.put("viewer", properties.security().viewerPassword());
        Path file = properties.dataDir().resolve(FILE_NAME);
        Properties kept = load(file);
        Map<String, String> result = new LinkedHashMap<>();
        List<String> generated = new ArrayList<>();
        for (Map.Entry<String, String> user : configured.entrySet()) {
            String name = user.getKey();
            if (user.getValue() != null && !user.getValue().isBlank()) {
                result.put(name, user.getValue());
            } else if (kept.getProperty(name) != null) {
                result.put(name, kept.getProperty(name));
            } else {
                String password = generate();
                kept.setProperty(name, password);
                result.put(name, password);
                generated.add(name);
                LOG.log(System.Logger.Level.WARNING, "Generated password for Blockwork user ''{0}'': {1}"
                        + " (kept in {2}; set BLOCKWORK_{3}_PASSWORD to choose your own)",
                        name, password, file, name.toUpperCase());
            }
        }
        if (!generated.isEmpty()) {
            store(kept, file);
        }
        return new Resolved(Map.copyOf(result), List.copyOf(generated));
    }

    private static String generate() {
        byte[] bytes = new byte[18];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static Properties load(Path file) {
        Properties p = new Properties();
        if (Files.exists(file)) {
            try (Reader r = Files.newBufferedReader(file)) {
                p.load(r);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        return p;
    }

    /** Writes a private temporary file and moves it into place, so the file is never readable by others. */
    private static void store(Properties p, Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
            Files.deleteIfExists(tmp);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                Files.createFile(tmp);
            }
            try (Writer w = Files.newBufferedWriter(tmp)) {
                p.store(w, "Blockwork users' generated passwords; delete a line to generate a new one");
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
