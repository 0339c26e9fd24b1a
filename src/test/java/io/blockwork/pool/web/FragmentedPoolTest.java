package io.blockwork.pool.web;

import static io.blockwork.support.PoolRequests.createPool;
import static io.blockwork.support.PoolRequests.createVolume;
import static io.blockwork.support.PoolRequests.getPool;
import static io.blockwork.support.PoolRequests.getVolume;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.pool.app.Segment;
import io.blockwork.pool.volume.app.VolumeResult;
import io.blockwork.pool.volume.app.VolumeService;
import io.blockwork.support.AppTest;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Issue 7, acceptance 2: a pool fragmented by creating 200 one-extent volumes and deleting every
 * other one has no free run longer than one extent, so a volume of 100 extents gets 100
 * segments: a table of 100 linear targets. Its data lands where the segments say, and one empty
 * flush on it reaches the pool's disk once (the per-device strategy), not once per target.
 */
@AppTest
class FragmentedPoolTest {

    private static final int EXTENT = 64 << 10;

    @Autowired
    MockMvc mvc;
    @Autowired
    VolumeService volumes;

    private long diskFlushes() throws Exception {
        String body = mvc.perform(get("/api/v1/devices/frag-pv").with(admin())).andReturn().getResponse().getContentAsString();
        return ((Number) JsonPath.read(body, "$.stats.flushes")).longValue();
    }

    @Test
    void aFragmentedPoolGivesAVolumeOfManySegmentsThatFlushesItsDiskOnce() throws Exception {
        mvc.perform(memoryDisk("frag-pv", (200 * EXTENT / 1024) + "KiB")).andExpect(status().isCreated());
        mvc.perform(createPool("frag-pool", "frag-pv", "64KiB")).andExpect(status().isCreated())
                .andExpect(jsonPath("$.extents.total").value(200));
        // the create/delete pattern through the service (the same operations as the API's, less HTTP)
        for (int i = 0; i < 200; i++) {
            VolumeResult made = volumes.create("frag-pool", "frag-" + i, (long) EXTENT);
            assertThat(made.volume().segments()).containsExactly(new Segment(0, i, 1));
        }
        for (int i = 0; i < 200; i += 2) {
            volumes.delete("frag-pool", "frag-" + i, false);
        }
        mvc.perform(getPool("frag-pool")).andExpect(jsonPath("$.extents.free").value(100))
                .andExpect(jsonPath("$.largestFreeRun.extents").value(1));

        mvc.perform(createVolume("frag-pool", "frag-big", 100 * EXTENT)).andExpect(status().isCreated())
                .andExpect(jsonPath("$.segmentCount").value(100));
        String body = mvc.perform(getVolume("frag-pool", "frag-big")).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsString();
        List<Integer> poolFirsts = JsonPath.read(body, "$.segments[*].poolExtents.first");
        List<Integer> volumeFirsts = JsonPath.read(body, "$.segments[*].volumeExtents.first");
        assertThat(poolFirsts).hasSize(100);
        for (int i = 0; i < 100; i++) {
            assertThat(volumeFirsts.get(i)).isEqualTo(i);
            assertThat(poolFirsts.get(i)).isEqualTo(2 * i);
        }
        String[] table = ((String) JsonPath.read(body, "$.table")).split("\n");
        assertThat(table).hasSize(100);
        for (int i = 0; i < 100; i++) {
            // 128 sectors per extent; volume extent i is pool extent 2i
            assertThat(table[i]).isEqualTo((i * 128) + " 128 linear frag-pv " + (2 * i * 128));
        }

        // data written across every segment lies on the disk where the segments say
        byte[] data = new byte[100 * EXTENT];
        new Random(100).nextBytes(data);
        mvc.perform(writeData("frag-big", 0, data)).andExpect(status().isNoContent());
        mvc.perform(readData("frag-big", 0, data.length)).andExpect(content().bytes(data));
        byte[] seventh = Arrays.copyOfRange(data, 7 * EXTENT, 8 * EXTENT);
        mvc.perform(readData("frag-pv", 14L * EXTENT, EXTENT)).andExpect(content().bytes(seventh));

        long before = diskFlushes();
        mvc.perform(post("/api/v1/devices/frag-big/flush").with(admin())).andExpect(status().isNoContent());
        assertThat(diskFlushes() - before).as("flushes the pool's disk received").isEqualTo(1);
    }
}
