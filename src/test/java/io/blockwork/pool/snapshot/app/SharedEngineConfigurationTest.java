package io.blockwork.pool.snapshot.app;

import static io.blockwork.support.DmRequests.createDm;
import static io.blockwork.support.DmRequests.dmDelete;
import static io.blockwork.support.PoolRequests.createPool;
import static io.blockwork.support.PoolRequests.createSnapshot;
import static io.blockwork.support.PoolRequests.createVolume;
import static io.blockwork.support.PoolRequests.getVolume;
import static io.blockwork.support.PoolRequests.listSnapshots;
import static io.blockwork.support.PoolRequests.mergeSnapshot;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.engine.dm.DmConfig;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.support.AppTest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Issue 14, scope 2: one engine configuration per running service. A volume with a pool snapshot
 * also gets a snapshot through the dm API ({@code snapshot <volume> <cow> P 8}, written through a
 * dm {@code snapshot-origin <volume>}); both snapshots keep the old data, the volume shows the
 * new, the pool snapshot's merge rolls the volume back without disturbing the dm snapshot, and
 * both origins sit in the one origin registry of the service's one {@link DmConfig}.
 */
@AppTest
class SharedEngineConfigurationTest {

    private static final int KIB = 1024;

    @Autowired
    MockMvc mvc;
    @Autowired
    DmConfig config;
    @Autowired
    DeviceRegistry registry;

    private byte[] read(String device, int length) throws Exception {
        return mvc.perform(readData(device, 0, length)).andExpect(status().isOk()).andReturn().getResponse()
                .getContentAsByteArray();
    }

    @Test
    void aDmSnapshotAndAPoolSnapshotOfOneVolumeWorkTogether() throws Exception {
        mvc.perform(memoryDisk("ec-pv", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createPool("ec", "ec-pv", "64KiB")).andExpect(status().isCreated());
        mvc.perform(createVolume("ec", "ec-v", "256KiB")).andExpect(status().isCreated());
        byte[] a = new byte[256 * KIB];
        new Random(14).nextBytes(a);
        mvc.perform(writeData("ec-v", 0, a)).andExpect(status().isNoContent());

        // a pool snapshot: ec-v becomes snapshot-origin over ec-v-real
        mvc.perform(createSnapshot("ec", "ec-v", "ec-s", "128KiB")).andExpect(status().isCreated());
        // a dm snapshot of the volume itself, on a disk of its own, and a dm origin to write through
        mvc.perform(memoryDisk("ec-cow", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createDm("ec-dsnap", "0 512 snapshot ec-v ec-cow P 8")).andExpect(status().isCreated());
        mvc.perform(createDm("ec-dorig", "0 512 snapshot-origin ec-v")).andExpect(status().isCreated());

        // one origin registry holds both: the pool's origin (ec-v-real) and the dm API's (ec-v)
        assertThat(config.snapshots().origins().origin(registry.require("ec-v").device())).isPresent();
        assertThat(config.snapshots().origins().origin(registry.require("ec-v-real").device())).isPresent();

        byte[] b = new byte[8 * KIB];
        Arrays.fill(b, (byte) 0x5a);
        mvc.perform(writeData("ec-dorig", 0, b)).andExpect(status().isNoContent());

        byte[] now = a.clone();
        System.arraycopy(b, 0, now, 0, b.length);
        assertThat(read("ec-v", 256 * KIB)).as("the volume has the new data").isEqualTo(now);
        assertThat(read("ec-s", 256 * KIB)).as("the pool snapshot kept the old").isEqualTo(a);
        assertThat(read("ec-dsnap", 256 * KIB)).as("the dm snapshot kept the old").isEqualTo(a);
        mvc.perform(listSnapshots("ec", "ec-v")).andExpect(jsonPath("$[0].exceptions").value(2));

        // roll the volume back with the pool snapshot; the dm snapshot is untouched
        mvc.perform(mergeSnapshot("ec", "ec-v", "ec-s")).andExpect(status().isAccepted());
        assertThat(read("ec-v", 256 * KIB)).as("rolled back at once").isEqualTo(a);
        await().atMost(Duration.ofSeconds(30)).until(() -> registry.find("ec-s").isEmpty());
        mvc.perform(getVolume("ec", "ec-v")).andExpect(jsonPath("$.table").value("0 512 linear ec-pv 0\n"));
        assertThat(read("ec-dsnap", 256 * KIB)).isEqualTo(a);
        assertThat(read("ec-v", 256 * KIB)).isEqualTo(a);

        mvc.perform(dmDelete("ec-dorig")).andExpect(status().isNoContent());
        mvc.perform(dmDelete("ec-dsnap")).andExpect(status().isNoContent());
        assertThat(config.snapshots().origins().origin(registry.require("ec-v").device())).isEmpty();
    }
}
