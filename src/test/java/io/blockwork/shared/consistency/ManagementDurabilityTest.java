package io.blockwork.shared.consistency;

import static io.blockwork.support.Requests.createDisk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.BlockworkProperties;
import io.blockwork.support.AppTest;
import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The management durability contract: when a change is answered, its commit is in the database
 * file, not only in H2's memory. The file is copied the instant the answer arrives, as kill -9
 * would leave it, and opened on its own: the change must be there. (With H2's default write
 * delay the copy showed the database as it was half a second earlier.)
 */
@AppTest
class ManagementDurabilityTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    BlockworkProperties properties;

    @Test
    void anAnsweredChangeIsInTheDatabaseFileAtOnce() throws Exception {
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String name = "dur-" + i;
            mvc.perform(createDisk("{\"name\":\"" + name + "\",\"type\":\"memory\",\"size\":\"1MiB\"}"))
                    .andExpect(status().isCreated());
            created.add(name);
            assertThat(disksInCopyOfDatabaseFile()).as("disks in the file right after creating %s", name)
                    .containsAll(created);
        }
    }

    /** The database file as it is on disk now, opened from a copy (the original is in use). */
    private List<String> disksInCopyOfDatabaseFile() throws Exception {
        Path copy = TempDataDir.newDataDir();
        Files.copy(properties.dataDir().resolve("blockwork.mv.db"), copy.resolve("blockwork.mv.db"));
        List<String> names = new ArrayList<>();
        try (Connection db = DriverManager.getConnection("jdbc:h2:file:" + copy.resolve("blockwork"), "sa", "");
             ResultSet rows = db.createStatement().executeQuery("SELECT name FROM disks")) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }
}
