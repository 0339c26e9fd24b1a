package io.blockwork.pool.app;

import static io.blockwork.support.PoolRequests.createPool;
import static io.blockwork.support.PoolRequests.createSnapshot;
import static io.blockwork.support.PoolRequests.createVolume;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.pool.snapshot.app.NewSnapshot;
import io.blockwork.pool.snapshot.app.SnapshotService;
import io.blockwork.pool.volume.app.VolumeChange;
import io.blockwork.pool.volume.app.VolumeService;
import io.blockwork.support.AppTest;
import io.blockwork.support.PoolState;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;

/**
 * "Every operation changes DB and engine together or neither": each pool and volume operation,
 * run inside a management operation whose transaction then rolls back, leaves the registry (names,
 * holders, exclusive claims), the live tables and the database as they were, and the volume still
 * serves its data. Snapshot operations too (a merge is the exception by design: its engine step,
 * which removes the snapshot's device, comes last, after everything that can refuse it).
 */
@AppTest
class PoolConsistencyTest {

    private static final int KIB = 1024;

    @Autowired
    MockMvc mvc;
    @Autowired
    PoolService pools;
    @Autowired
    VolumeService volumes;
    @Autowired
    SnapshotService snapshots;
    @Autowired
    DeviceRegistry registry;
    @Autowired
    ManagementOperations management;
    @Autowired
    JdbcTemplate jdbc;

    /** {@code p}-pv (1 MiB), pool {@code p} of 64 KiB extents, volume {@code p}-v of 256 KiB holding data. */
    private byte[] fixture(String p) throws Exception {
        mvc.perform(memoryDisk(p + "-pv", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createPool(p, p + "-pv", "64KiB")).andExpect(status().isCreated());
        mvc.perform(createVolume(p, p + "-v", "256KiB")).andExpect(status().isCreated());
        byte[] data = new byte[256 * KIB];
        new Random(p.hashCode()).nextBytes(data);
        mvc.perform(writeData(p + "-v", 0, data)).andExpect(status().isNoContent());
        return data;
    }

    /** The fixture with snapshot {@code p}-s, then the volume's first 8 KiB overwritten. */
    private byte[] withSnapshot(String p) throws Exception {
        byte[] data = fixture(p);
        mvc.perform(createSnapshot(p, p + "-v", p + "-s", "128KiB")).andExpect(status().isCreated());
        mvc.perform(writeData(p + "-v", 0, new byte[8 * KIB])).andExpect(status().isNoContent());
        return data;
    }

    private void rolledBack(String p, Runnable operation) {
        String before = PoolState.of(jdbc, registry, p);
        assertThatThrownBy(() -> management.run(changes -> {
            operation.run();
            throw new IllegalStateException("the database said no");
        })).hasMessage("the database said no");
        assertThat(PoolState.of(jdbc, registry, p)).isEqualTo(before);
    }

    private void assertServes(String volume, byte[] data) throws Exception {
        mvc.perform(readData(volume, 0, data.length)).andExpect(content().bytes(data));
    }

    @Test
    void poolCreateIsUndone() throws Exception {
        mvc.perform(memoryDisk("pc-pc-pv", "1MiB")).andExpect(status().isCreated());
        rolledBack("pc-pc", () -> pools.create("pc-pc", "pc-pc-pv", 64L * KIB));
        assertThat(registry.require("pc-pc-pv").holders()).isEmpty();
        mvc.perform(get("/api/v1/pools/pc-pc").with(admin())).andExpect(problem(404, "not-found"));
    }

    @Test
    void poolDeleteIsUndone() throws Exception {
        mvc.perform(memoryDisk("pc-pd-pv", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createPool("pc-pd", "pc-pd-pv", "64KiB")).andExpect(status().isCreated());
        rolledBack("pc-pd", () -> pools.delete("pc-pd"));
        // still held exclusively: an export of its disk is refused
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"pc-pd-pv\"}")).andExpect(problem(409, "device-busy"));
    }

    @Test
    void volumeCreateIsUndone() throws Exception {
        byte[] data = fixture("pc-vc");
        rolledBack("pc-vc", () -> volumes.create("pc-vc", "pc-vc-w", 128L * KIB));
        assertThat(registry.find("pc-vc-w")).isEmpty();
        assertServes("pc-vc-v", data);
    }

    @Test
    void extendIsUndone() throws Exception {
        byte[] data = fixture("pc-ext");
        rolledBack("pc-ext", () -> volumes.change("pc-ext", "pc-ext-v", new VolumeChange(null, 256L * KIB, false, null)));
        assertThat(registry.device("pc-ext-v").sizeBytes()).isEqualTo(256L * KIB);
        assertServes("pc-ext-v", data);
    }

    @Test
    void shrinkIsUndoneWithTheDataPastTheCut() throws Exception {
        byte[] data = fixture("pc-shr");
        rolledBack("pc-shr", () -> volumes.change("pc-shr", "pc-shr-v", new VolumeChange(64L * KIB, null, true, null)));
        assertServes("pc-shr-v", data);
    }

    @Test
    void renameIsUndone() throws Exception {
        byte[] data = fixture("pc-ren");
        rolledBack("pc-ren", () -> volumes.rename("pc-ren", "pc-ren-v", "pc-ren-w"));
        assertThat(registry.find("pc-ren-w")).isEmpty();
        assertServes("pc-ren-v", data);
    }

    @Test
    void deleteIsUndone() throws Exception {
        byte[] data = fixture("pc-del");
        rolledBack("pc-del", () -> volumes.delete("pc-del", "pc-del-v", false));
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"name\":\"pc-del-e\",\"device\":\"pc-del-v\"}")).andExpect(status().isCreated());
        rolledBack("pc-del", () -> volumes.delete("pc-del", "pc-del-v", true));
        mvc.perform(get("/api/v1/exports/pc-del-e").with(admin())).andExpect(status().isOk());
        assertServes("pc-del-v", data);
    }

    @Test
    void theFirstSnapshotIsUndoneAndTheVolumeStaysLinear() throws Exception {
        byte[] data = fixture("sc-first");
        rolledBack("sc-first", () -> snapshots.create("sc-first", "sc-first-v",
                new NewSnapshot("sc-first-s", 128L * KIB, null, null)));
        assertThat(registry.find("sc-first-v-real")).isEmpty();
        assertThat(registry.find("sc-first-s-cow")).isEmpty();
        assertServes("sc-first-v", data);
    }

    @Test
    void aSecondSnapshotIsUndoneAndTheFirstKeepsWorking() throws Exception {
        byte[] data = withSnapshot("sc-second");
        rolledBack("sc-second", () -> snapshots.create("sc-second", "sc-second-v",
                new NewSnapshot("sc-second-t", 128L * KIB, null, null)));
        mvc.perform(writeData("sc-second-v", 128 * KIB, new byte[8 * KIB])).andExpect(status().isNoContent());
        assertServes("sc-second-s", data);
    }

    @Test
    void deletingTheLastSnapshotIsUndoneAndItStillServesTheOldData() throws Exception {
        byte[] data = withSnapshot("sc-del");
        rolledBack("sc-del", () -> snapshots.delete("sc-del", "sc-del-v", "sc-del-s", false));
        assertServes("sc-del-s", data);
        // the origin still copies out
        mvc.perform(writeData("sc-del-v", 64 * KIB, new byte[8 * KIB])).andExpect(status().isNoContent());
        assertServes("sc-del-s", data);
    }

    @Test
    void aForcedVolumeDeleteWithSnapshotsIsUndone() throws Exception {
        byte[] data = withSnapshot("sc-vol");
        rolledBack("sc-vol", () -> volumes.delete("sc-vol", "sc-vol-v", true));
        assertServes("sc-vol-s", data);
    }
}
