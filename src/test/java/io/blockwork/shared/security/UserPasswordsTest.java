package io.blockwork.shared.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.BlockworkProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class UserPasswordsTest {

    @TempDir
    Path dataDir;

    private BlockworkProperties properties(String admin, String viewer) {
        return new BlockworkProperties(dataDir, BlockworkProperties.Nbd.at("127.0.0.1", 10809),
                new BlockworkProperties.Security(admin, viewer), null,
                new BlockworkProperties.NodeLease(Duration.ofSeconds(15), Duration.ofSeconds(3)));
    }

    @Test
    void generatesMissingPasswordsOnceKeepsThemPrivateAndReusesThem() throws Exception {
        UserPasswords.Resolved first = UserPasswords.resolve(properties(null, ""));
        assertThat(first.generatedFor()).containsExactly("admin", "viewer");
        assertThat(first.passwords().get("admin")).hasSizeGreaterThanOrEqualTo(20).isNotEqualTo(first.passwords().get("viewer"));
        Path file = dataDir.resolve(UserPasswords.FILE_NAME);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        String stored = Files.readString(file);

        UserPasswords.Resolved second = UserPasswords.resolve(properties(null, null));
        assertThat(second.generatedFor()).isEmpty();
        assertThat(second.passwords()).isEqualTo(first.passwords());
        assertThat(Files.readString(file)).isEqualTo(stored);
    }

    @Test
    void aConfiguredPasswordWinsAndIsNotStored() throws Exception {
        UserPasswords.Resolved r = UserPasswords.resolve(properties("from-env", null));
        assertThat(r.passwords()).containsEntry("admin", "from-env");
        assertThat(r.generatedFor()).containsExactly("viewer");
        assertThat(Files.readString(dataDir.resolve(UserPasswords.FILE_NAME))).doesNotContain("from-env")
                .doesNotContain("admin=");
        assertThat(UserPasswords.resolve(properties(null, null)).passwords().get("viewer"))
                .isEqualTo(r.passwords().get("viewer"));
        assertThat(Map.copyOf(r.passwords())).hasSize(2);
    }
}
