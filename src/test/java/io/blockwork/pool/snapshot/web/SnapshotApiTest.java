package io.blockwork.pool.snapshot.web;

import static io.blockwork.support.PoolRequests.createPool;
import static io.blockwork.support.PoolRequests.createSnapshot;
import static io.blockwork.support.PoolRequests.createVolume;
import static io.blockwork.support.PoolRequests.deleteSnapshot;
import static io.blockwork.support.PoolRequests.deleteVolume;
import static io.blockwork.support.PoolRequests.getPool;
import static io.blockwork.support.PoolRequests.getSnapshot;
import static io.blockwork.support.PoolRequests.getVolume;
import static io.blockwork.support.PoolRequests.listSnapshots;
import static io.blockwork.support.PoolRequests.mergeSnapshot;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.viewer;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/** Issue 9, volume snapshots as users drive them: take, read, list with fill, merge (rollback), delete. */
@AppTest
class SnapshotApiTest {

    private static final int KIB = 1024;

    @Autowired
    MockMvc mvc;

    /** {@code p}-pv (4 MiB memory disk), pool {@code p} of 64 KiB extents, volume {@code p}-v of 512 KiB. */
    private void volume(String p) throws Exception {
        mvc.perform(memoryDisk(p + "-pv", "4MiB")).andExpect(status().isCreated());
        mvc.perform(createPool(p, p + "-pv", "64KiB")).andExpect(status().isCreated());
        mvc.perform(createVolume(p, p + "-v", "512KiB")).andExpect(status().isCreated());
    }

    private static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private byte[] read(String device, int length) throws Exception {
        return mvc.perform(readData(device, 0, length)).andExpect(status().isOk()).andReturn().getResponse()
                .getContentAsByteArray();
    }

    @Test
    void aSnapshotKeepsTheVolumeAsItWasWhileTheVolumeStaysWritable() throws Exception {
        volume("sa");
        byte[] a = random(512 * KIB, 1);
        mvc.perform(writeData("sa-v", 0, a)).andExpect(status().isNoContent());

        mvc.perform(createSnapshot("sa", "sa-v", "{\"name\":\"sa-s1\",\"size\":\"256KiB\"}"))
                .andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/v1/pools/sa/volumes/sa-v/snapshots/sa-s1"))
                .andExpect(jsonPath("$.volume").value("sa-v"))
                .andExpect(jsonPath("$.sizeBytes").value(256 * KIB))
                .andExpect(jsonPath("$.chunkSizeBytes").value(4 * KIB))
                .andExpect(jsonPath("$.persistent").value(true))
                .andExpect(jsonPath("$.state").value("active"))
                .andExpect(jsonPath("$.exceptions").value(0));
        // LVM's layout: the volume is a snapshot-origin over its hidden -real device
        mvc.perform(getVolume("sa", "sa-v")).andExpect(jsonPath("$.table").value("0 1024 snapshot-origin sa-v-real\n"))
                .andExpect(jsonPath("$.attributes").value("owi-a-----"))
                .andExpect(jsonPath("$.snapshots[0]").value("sa-s1"));
        mvc.perform(get("/api/v1/devices/sa-s1-cow").with(admin())).andExpect(jsonPath("$.kind").value("hidden"))
                .andExpect(jsonPath("$.holders[0]").value("snapshot sa-s1"));
        mvc.perform(get("/api/v1/devices/sa-v-real").with(admin())).andExpect(jsonPath("$.holders[0]").value("volume sa-v"));
        mvc.perform(get("/api/v1/devices/sa-s1").with(admin())).andExpect(jsonPath("$.kind").value("snapshot"));

        byte[] b = random(64 * KIB, 2);
        mvc.perform(writeData("sa-v", 128 * KIB, b)).andExpect(status().isNoContent());
        byte[] now = a.clone();
        System.arraycopy(b, 0, now, 128 * KIB, b.length);
        assertThat(read("sa-v", 512 * KIB)).isEqualTo(now);
        assertThat(read("sa-s1", 512 * KIB)).isEqualTo(a);

        // a second snapshot sees the volume as it is now; the first still as it was
        mvc.perform(createSnapshot("sa", "sa-v", "sa-s2", "128KiB")).andExpect(status().isCreated());
        mvc.perform(writeData("sa-v", 0, random(4 * KIB, 3))).andExpect(status().isNoContent());
        assertThat(read("sa-s2", 512 * KIB)).isEqualTo(now);
        assertThat(read("sa-s1", 512 * KIB)).isEqualTo(Arrays.copyOf(a, a.length));

        // 64 KiB in 4 KiB chunks copied out, then one more chunk: 17 exceptions in s1, 1 in s2
        mvc.perform(getSnapshot("sa", "sa-v", "sa-s1")).andExpect(status().isOk())
                .andExpect(jsonPath("$.exceptions").value(17))
                .andExpect(jsonPath("$.fillPercent").value(greaterThan(25.0)))
                .andExpect(jsonPath("$.allocatedBytes").value(greaterThan(68 * KIB)))
                .andExpect(jsonPath("$.status").value(org.hamcrest.Matchers.startsWith("0 1024 snapshot ")));
        mvc.perform(listSnapshots("sa", "sa-v").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$[0].name").value("sa-s1")).andExpect(jsonPath("$[1].name").value("sa-s2"))
                .andExpect(jsonPath("$[1].exceptions").value(1));
        // the COW space comes out of the pool: 8 extents for the volume, 4 + 2 for the snapshots
        mvc.perform(getPool("sa")).andExpect(jsonPath("$.extents.used").value(14));
    }

    @Test
    void mergeRollsTheVolumeBackAtOnceAndTheSnapshotGoesWhenDone() throws Exception {
        volume("sm");
        byte[] a = random(512 * KIB, 4);
        mvc.perform(writeData("sm-v", 0, a)).andExpect(status().isNoContent());
        mvc.perform(createSnapshot("sm", "sm-v", "sm-s", "1MiB")).andExpect(status().isCreated());
        mvc.perform(writeData("sm-v", 0, random(512 * KIB, 5))).andExpect(status().isNoContent());

        mvc.perform(mergeSnapshot("sm", "sm-v", "sm-s")).andExpect(status().isAccepted())
                .andExpect(jsonPath("$.state").value("merging"))
                .andExpect(jsonPath("$.merge.exceptionsAtStart").value(128));
        assertThat(read("sm-v", 512 * KIB)).as("the volume shows the snapshot's content at once").isEqualTo(a);

        await().atMost(Duration.ofSeconds(30)).until(() ->
                mvc.perform(getSnapshot("sm", "sm-v", "sm-s")).andReturn().getResponse().getStatus() == 404);
        assertThat(read("sm-v", 512 * KIB)).isEqualTo(a);
        mvc.perform(getVolume("sm", "sm-v")).andExpect(jsonPath("$.table").value(org.hamcrest.Matchers.containsString(
                        " linear sm-pv ")))
                .andExpect(jsonPath("$.attributes").value("-wi-a-----"))
                .andExpect(jsonPath("$.snapshots").isEmpty());
        mvc.perform(getPool("sm")).andExpect(jsonPath("$.extents.used").value(8));
        mvc.perform(get("/api/v1/devices").with(admin()))
                .andExpect(jsonPath("$[*].name", not(hasItem("sm-v-real"))))
                .andExpect(jsonPath("$[*].name", not(hasItem("sm-s-cow"))))
                .andExpect(jsonPath("$[*].name", not(hasItem("sm-s"))));
    }

    @Test
    void mergeWithAnotherSnapshotLeftKeepsTheOriginAndTheOtherSnapshot() throws Exception {
        volume("sk");
        byte[] a = random(512 * KIB, 6);
        mvc.perform(writeData("sk-v", 0, a)).andExpect(status().isNoContent());
        mvc.perform(createSnapshot("sk", "sk-v", "sk-old", "1MiB")).andExpect(status().isCreated());
        byte[] b = random(512 * KIB, 7);
        mvc.perform(writeData("sk-v", 0, b)).andExpect(status().isNoContent());
        mvc.perform(createSnapshot("sk", "sk-v", "sk-new", "1MiB")).andExpect(status().isCreated());

        mvc.perform(mergeSnapshot("sk", "sk-v", "sk-old")).andExpect(status().isAccepted());
        await().atMost(Duration.ofSeconds(30)).until(() ->
                mvc.perform(getSnapshot("sk", "sk-v", "sk-old")).andReturn().getResponse().getStatus() == 404);
        assertThat(read("sk-v", 512 * KIB)).isEqualTo(a);
        assertThat(read("sk-new", 512 * KIB)).as("the merge's writes were copied out first").isEqualTo(b);
        mvc.perform(getVolume("sk", "sk-v")).andExpect(jsonPath("$.table").value("0 1024 snapshot-origin sk-v-real\n"))
                .andExpect(jsonPath("$.snapshots[0]").value("sk-new"));
    }

    @Test
    void deletingTheLastSnapshotFreesItsSpaceAndMakesTheVolumeLinearAgain() throws Exception {
        volume("sd");
        byte[] a = random(512 * KIB, 8);
        mvc.perform(writeData("sd-v", 0, a)).andExpect(status().isNoContent());
        String linear = mvc.perform(getVolume("sd", "sd-v")).andReturn().getResponse().getContentAsString();
        mvc.perform(createSnapshot("sd", "sd-v", "sd-s1", "128KiB")).andExpect(status().isCreated());
        mvc.perform(createSnapshot("sd", "sd-v", "sd-s2", "128KiB")).andExpect(status().isCreated());
        mvc.perform(writeData("sd-v", 0, random(8 * KIB, 9))).andExpect(status().isNoContent());

        mvc.perform(deleteSnapshot("sd", "sd-v", "sd-s1")).andExpect(status().isNoContent());
        mvc.perform(getVolume("sd", "sd-v")).andExpect(jsonPath("$.attributes").value("owi-a-----"));
        assertThat(read("sd-s2", 512 * KIB)).isEqualTo(a);
        mvc.perform(deleteSnapshot("sd", "sd-v", "sd-s2")).andExpect(status().isNoContent());

        mvc.perform(getVolume("sd", "sd-v")).andExpect(jsonPath("$.attributes").value("-wi-a-----"))
                .andExpect(jsonPath("$.table").value(com.jayway.jsonpath.JsonPath.read(linear, "$.table").toString()));
        mvc.perform(listSnapshots("sd", "sd-v")).andExpect(content().json("[]"));
        mvc.perform(getPool("sd")).andExpect(jsonPath("$.extents.used").value(8));
        mvc.perform(get("/api/v1/devices").with(admin()))
                .andExpect(jsonPath("$[*].name", not(hasItem("sd-v-real"))))
                .andExpect(jsonPath("$[*].name", not(hasItem("sd-s1-cow"))));
        // the volume keeps working, and can be resized again
        mvc.perform(writeData("sd-v", 0, a)).andExpect(status().isNoContent());
        assertThat(read("sd-v", 512 * KIB)).isEqualTo(a);
    }

    @Test
    void aForcedVolumeDeleteDeletesItsSnapshotsAndTheirExports() throws Exception {
        volume("sf");
        mvc.perform(createSnapshot("sf", "sf-v", "sf-s", "128KiB")).andExpect(status().isCreated());
        mvc.perform(org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post("/api/v1/exports")
                .with(admin()).contentType("application/json")
                .content("{\"device\":\"sf-s\",\"readOnly\":true}")).andExpect(status().isCreated())
                .andExpect(jsonPath("$.deviceKind").value("snapshot")).andExpect(jsonPath("$.readOnly").value(true));
        mvc.perform(getSnapshot("sf", "sf-v", "sf-s")).andExpect(jsonPath("$.exports[0]").value("sf-s"));

        mvc.perform(deleteVolume("sf", "sf-v").param("force", "true")).andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/exports/sf-s").with(admin())).andExpect(status().isNotFound());
        mvc.perform(getPool("sf")).andExpect(jsonPath("$.extents.used").value(0));
        mvc.perform(get("/api/v1/devices").with(admin()))
                .andExpect(jsonPath("$[*].name", not(hasItem("sf-s"))))
                .andExpect(jsonPath("$[*].name", not(hasItem("sf-v-real"))))
                .andExpect(jsonPath("$[*].name", not(hasItem("sf-s-cow"))));
    }

    @Test
    void aSnapshotWhoseCowSpaceFillsUpIsInvalidAndSaysSo() throws Exception {
        volume("si");
        // 64 KiB of COW space: header, one metadata area and 14 chunks of 4 KiB
        mvc.perform(createSnapshot("si", "si-v", "si-s", "64KiB")).andExpect(status().isCreated());
        mvc.perform(writeData("si-v", 0, random(128 * KIB, 10))).andExpect(status().isNoContent());
        mvc.perform(getSnapshot("si", "si-v", "si-s")).andExpect(jsonPath("$.state").value("invalid"))
                .andExpect(jsonPath("$.fillPercent").doesNotExist())
                .andExpect(jsonPath("$.status").value("0 1024 snapshot Invalid"));
        mvc.perform(readData("si-s", 0, 4 * KIB)).andExpect(status().is5xxServerError());
        // the volume is not affected, and the invalid snapshot can be deleted
        mvc.perform(deleteSnapshot("si", "si-v", "si-s")).andExpect(status().isNoContent());
        mvc.perform(getVolume("si", "si-v")).andExpect(jsonPath("$.attributes").value("-wi-a-----"));
    }
}
