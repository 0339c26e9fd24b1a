package io.blockwork.pool.thin.web;

import static io.blockwork.support.PoolRequests.POOLS;
import static io.blockwork.support.PoolRequests.createPool;
import static io.blockwork.support.PoolRequests.createVolume;
import static io.blockwork.support.PoolRequests.deletePool;
import static io.blockwork.support.PoolRequests.deleteVolume;
import static io.blockwork.support.PoolRequests.getPool;
import static io.blockwork.support.PoolRequests.getVolume;
import static io.blockwork.support.PoolRequests.listVolumes;
import static io.blockwork.support.PoolRequests.resize;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.viewer;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.patch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * Thin pools over REST (issue 19, scope 5): thin pools in the pools API on two devices or carved
 * from a classic pool, thin volumes with a virtual size (overprovisioning allowed and shown),
 * snapshots of volumes and of snapshots through the snapshot endpoints, allocated versus virtual
 * sizes in every listing (Data%, Meta%) and in the Prometheus scrape, created events for thin
 * volumes and snapshots, online growth, and bad input refused changing nothing.
 */
@AppTest
class ThinPoolApiTest {

    private static final int KIB = 1024;
    private static final int CHUNK = 64 * KIB;

    @Autowired
    MockMvc mvc;

    private static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static MockHttpServletRequestBuilder snapshot(String pool, String volume, String json) {
        return post(POOLS + "/{p}/volumes/{v}/snapshots", pool, volume).with(admin())
                .contentType(MediaType.APPLICATION_JSON).content(json);
    }

    /** The value of {@code name{pool="pool"}} in a Prometheus scrape. */
    private static double sample(String scrape, String name, String pool) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name + "{pool=\"" + pool + "\"}") + " (\\S+)$").matcher(scrape);
        assertThat(m.find()).as("%s of pool %s in the scrape", name, pool).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** A thin pool on memory disks {@code p}-data (16 MiB) and {@code p}-meta (4 MiB). */
    private void devicePool(String p) throws Exception {
        mvc.perform(memoryDisk(p + "-data", "16MiB")).andExpect(status().isCreated());
        mvc.perform(memoryDisk(p + "-meta", "4MiB")).andExpect(status().isCreated());
        mvc.perform(createPool("{\"name\":\"" + p + "\",\"type\":\"thin\",\"dataDevice\":\"" + p
                        + "-data\",\"metadataDevice\":\"" + p + "-meta\"}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.type").value("thin"))
                .andExpect(jsonPath("$.device").value(p + "-tpool"))
                .andExpect(jsonPath("$.capacityBytes").value(16 << 20))
                .andExpect(jsonPath("$.thin.dataDevice").value(p + "-data"))
                .andExpect(jsonPath("$.thin.chunkSizeBytes").value(CHUNK))
                .andExpect(jsonPath("$.thin.dataPercent").value(0.0))
                .andExpect(jsonPath("$.thin.metadataBytes").value(4 << 20))
                .andExpect(jsonPath("$.thin.mode").value("rw"))
                .andExpect(jsonPath("$.thin.status").value(org.hamcrest.Matchers.startsWith("0 32768 thin-pool 0 ")));
    }

    @Test
    void aThinVolumeTakesSpaceOnlyAsItIsWrittenAndMayBeLargerThanItsPool() throws Exception {
        devicePool("tp1");
        mvc.perform(get("/api/v1/devices/tp1-data").with(admin())).andExpect(jsonPath("$.holders[0]").value("thin-pool tp1"));
        mvc.perform(createVolume("tp1", "tp1-v", "1TiB")).andExpect(status().isCreated())
                .andExpect(jsonPath("$.type").value("thin"))
                .andExpect(jsonPath("$.sizeBytes").value(1L << 40))
                .andExpect(jsonPath("$.allocatedBytes").value(0))
                .andExpect(jsonPath("$.dataPercent").value(0.0))
                .andExpect(jsonPath("$.attributes").value("Vwi-a-tz--"))
                .andExpect(jsonPath("$.table").value("0 2147483648 thin tp1-tpool 0\n"));
        byte[] data = random(256 * KIB, 1);
        mvc.perform(writeData("tp1-v", 1L << 39, data)).andExpect(status().isNoContent());
        mvc.perform(readData("tp1-v", 1L << 39, data.length)).andExpect(content().bytes(data));
        mvc.perform(getVolume("tp1", "tp1-v")).andExpect(jsonPath("$.allocatedBytes").value(256 * KIB));
        mvc.perform(listVolumes()).andExpect(jsonPath("$[?(@.name == 'tp1-v')].allocatedBytes").value(256 * KIB))
                .andExpect(jsonPath("$[?(@.name == 'tp1-v')].type").value("thin"));
        mvc.perform(getPool("tp1")).andExpect(jsonPath("$.usedBytes").value(256 * KIB))
                .andExpect(jsonPath("$.thin.usedDataBytes").value(256 * KIB))
                .andExpect(jsonPath("$.thin.dataPercent").value(1.56))
                .andExpect(jsonPath("$.thin.virtualBytes").value(1L << 40))
                .andExpect(jsonPath("$.thin.overprovisioning").value(65536.0))
                .andExpect(jsonPath("$.volumes[0]").value("tp1-v"));
        mvc.perform(get(POOLS).with(admin())).andExpect(jsonPath("$[?(@.name == 'tp1')].type").value("thin"));
        String scrape = mvc.perform(get("/actuator/prometheus").with(viewer())).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsString();
        assertThat(sample(scrape, "blockwork_thin_pool_data_used_bytes", "tp1")).isEqualTo(256 * KIB);
        assertThat(sample(scrape, "blockwork_thin_pool_data_bytes", "tp1")).isEqualTo(16 << 20);
        assertThat(sample(scrape, "blockwork_thin_pool_virtual_bytes", "tp1")).isEqualTo(1L << 40);
        assertThat(sample(scrape, "blockwork_thin_pool_metadata_used_bytes", "tp1")).isPositive();

        // a discard of whole chunks gives them back
        mvc.perform(post("/api/v1/devices/tp1-v/discard").with(admin()).param("offset", Long.toString(1L << 39))
                .param("length", Long.toString(128 * KIB))).andExpect(status().isNoContent());
        mvc.perform(getVolume("tp1", "tp1-v")).andExpect(jsonPath("$.allocatedBytes").value(128 * KIB));

        mvc.perform(deletePool("tp1")).andExpect(problem(409, "pool-not-empty"));
        mvc.perform(deleteVolume("tp1", "tp1-v")).andExpect(status().isNoContent());
        mvc.perform(getPool("tp1")).andExpect(jsonPath("$.usedBytes").value(0));
        mvc.perform(deletePool("tp1")).andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/devices/tp1-data").with(admin())).andExpect(jsonPath("$.holders").isEmpty());
    }

    @Test
    void snapshotsShareBlocksAndCanBeTakenOfSnapshotsAndMerged() throws Exception {
        devicePool("tp2");
        mvc.perform(createVolume("tp2", "tp2-v", "1MiB")).andExpect(status().isCreated());
        byte[] a = random(1024 * KIB, 2);
        mvc.perform(writeData("tp2-v", 0, a)).andExpect(status().isNoContent());
        mvc.perform(snapshot("tp2", "tp2-v", "{\"name\":\"tp2-s1\"}")).andExpect(status().isCreated())
                .andExpect(jsonPath("$.type").value("thin"))
                .andExpect(jsonPath("$.source").value("tp2-v"))
                .andExpect(jsonPath("$.sizeBytes").value(1024 * KIB))
                .andExpect(jsonPath("$.allocatedBytes").value(1024 * KIB))
                .andExpect(jsonPath("$.fillPercent").value(100.0))
                .andExpect(jsonPath("$.state").value("active"));
        mvc.perform(getPool("tp2")).andExpect(jsonPath("$.usedBytes").value(1024 * KIB));
        mvc.perform(get("/api/v1/events/recent").with(admin()).param("object", "tp2-s1"))
                .andExpect(jsonPath("$[?(@.type == 'created')].kind").value(org.hamcrest.Matchers.contains("snapshot")))
                .andExpect(jsonPath("$[?(@.type == 'created')].parent").value(org.hamcrest.Matchers.contains("tp2-v")));
        mvc.perform(get("/api/v1/events/recent").with(admin()).param("object", "tp2-v"))
                .andExpect(jsonPath("$[?(@.type == 'created' && @.object == 'tp2-v')].kind")
                        .value(org.hamcrest.Matchers.contains("volume")))
                .andExpect(jsonPath("$[?(@.type == 'created' && @.object == 'tp2-v')].parent")
                        .value(org.hamcrest.Matchers.contains("tp2")));

        byte[] b = random(CHUNK, 3);
        mvc.perform(writeData("tp2-v", 0, b)).andExpect(status().isNoContent());
        mvc.perform(getPool("tp2")).andExpect(jsonPath("$.usedBytes").value(1024 * KIB + CHUNK));
        mvc.perform(readData("tp2-s1", 0, CHUNK)).andExpect(content().bytes(java.util.Arrays.copyOf(a, CHUNK)));

        mvc.perform(snapshot("tp2", "tp2-v", "{\"name\":\"tp2-s2\",\"source\":\"tp2-s1\"}")).andExpect(status().isCreated())
                .andExpect(jsonPath("$.source").value("tp2-s1"));
        mvc.perform(readData("tp2-s2", 0, CHUNK)).andExpect(content().bytes(java.util.Arrays.copyOf(a, CHUNK)));
        mvc.perform(snapshot("tp2", "tp2-v", "{\"name\":\"tp2-s3\",\"source\":\"nope\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("source"));
        mvc.perform(get(POOLS + "/tp2/volumes/tp2-v/snapshots").with(admin()))
                .andExpect(jsonPath("$[*].name").value(org.hamcrest.Matchers.contains("tp2-s1", "tp2-s2")));
        mvc.perform(getVolume("tp2", "tp2-v")).andExpect(jsonPath("$.snapshots.length()").value(2));
        mvc.perform(deleteVolume("tp2", "tp2-v")).andExpect(problem(409, "has-snapshots"));

        // roll the volume back to s1: instant, and s1 is gone
        mvc.perform(post(POOLS + "/tp2/volumes/tp2-v/snapshots/tp2-s1/merge").with(admin()))
                .andExpect(status().isAccepted()).andExpect(jsonPath("$.state").value("merged"));
        mvc.perform(readData("tp2-v", 0, a.length)).andExpect(content().bytes(a));
        mvc.perform(get(POOLS + "/tp2/volumes/tp2-v/snapshots/tp2-s1").with(admin())).andExpect(status().isNotFound());
        mvc.perform(getPool("tp2")).andExpect(jsonPath("$.usedBytes").value(1024 * KIB));

        mvc.perform(delete(POOLS + "/tp2/volumes/tp2-v").with(admin()).param("force", "true"))
                .andExpect(status().isNoContent());
        mvc.perform(getPool("tp2")).andExpect(jsonPath("$.usedBytes").value(0))
                .andExpect(jsonPath("$.thin.virtualBytes").value(0));
        mvc.perform(deletePool("tp2")).andExpect(status().isNoContent());
    }

    @Test
    void aThinPoolCarvedFromAClassicPoolGrowsOnline() throws Exception {
        mvc.perform(memoryDisk("tp3-pv", "64MiB")).andExpect(status().isCreated());
        mvc.perform(createPool("tp3-vg", "tp3-pv", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createPool("{\"name\":\"tp3\",\"type\":\"thin\",\"from\":\"tp3-vg\",\"size\":\"8MiB\","
                        + "\"errorWhenFull\":true}"))
                .andExpect(status().isCreated())
                .andExpect(jsonPath("$.thin.from").value("tp3-vg"))
                .andExpect(jsonPath("$.thin.dataDevice").value("tp3-tdata"))
                .andExpect(jsonPath("$.thin.metadataDevice").value("tp3-tmeta"))
                .andExpect(jsonPath("$.capacityBytes").value(8 << 20))
                .andExpect(jsonPath("$.thin.metadataBytes").value(2 << 20))
                .andExpect(jsonPath("$.thin.errorWhenFull").value(true));
        mvc.perform(getPool("tp3-vg")).andExpect(jsonPath("$.usedBytes").value(10 << 20));
        mvc.perform(deletePool("tp3-vg")).andExpect(problem(409, "pool-not-empty"));

        mvc.perform(createVolume("tp3", "tp3-v", "64MiB")).andExpect(status().isCreated());
        mvc.perform(writeData("tp3-v", 0, random(8 << 20, 4))).andExpect(status().isNoContent());
        mvc.perform(getPool("tp3")).andExpect(jsonPath("$.thin.dataPercent").value(100.0));
        mvc.perform(writeData("tp3-v", 8 << 20, random(CHUNK, 5))).andExpect(problem(409, "insufficient-space"));

        mvc.perform(patch(POOLS + "/tp3").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"size\":\"16MiB\",\"metadataSize\":\"4MiB\"}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.capacityBytes").value(16 << 20))
                .andExpect(jsonPath("$.thin.metadataBytes").value(4 << 20))
                .andExpect(jsonPath("$.thin.dataPercent").value(50.0));
        byte[] more = random(CHUNK, 6);
        mvc.perform(writeData("tp3-v", 8 << 20, more)).andExpect(status().isNoContent());
        mvc.perform(readData("tp3-v", 8 << 20, CHUNK)).andExpect(content().bytes(more));
        mvc.perform(patch(POOLS + "/tp3").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"size\":\"4MiB\"}")).andExpect(problem(400, "validation-failed"));
        mvc.perform(patch(POOLS + "/tp3-vg").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"size\":\"4MiB\"}")).andExpect(problem(409, "not-supported"));

        // a thin volume's virtual size changes online; shrinking gives the blocks past the end back
        mvc.perform(resize("tp3", "tp3-v", "4MiB", false)).andExpect(problem(409, "shrink-not-confirmed"));
        mvc.perform(resize("tp3", "tp3-v", "4MiB", true)).andExpect(status().isOk())
                .andExpect(jsonPath("$.sizeBytes").value(4 << 20))
                .andExpect(jsonPath("$.allocatedBytes").value(4 << 20));
        mvc.perform(getPool("tp3")).andExpect(jsonPath("$.usedBytes").value(4 << 20));

        mvc.perform(deleteVolume("tp3", "tp3-v")).andExpect(status().isNoContent());
        mvc.perform(deletePool("tp3")).andExpect(status().isNoContent());
        mvc.perform(getPool("tp3-vg")).andExpect(jsonPath("$.usedBytes").value(0));
        mvc.perform(deletePool("tp3-vg")).andExpect(status().isNoContent());
    }

    @Test
    void badThinRequestsAreRefusedNamingTheFieldAndChangeNothing() throws Exception {
        mvc.perform(memoryDisk("tp4-data", "4MiB")).andExpect(status().isCreated());
        mvc.perform(memoryDisk("tp4-meta", "1MiB")).andExpect(status().isCreated());
        String devices = ",\"dataDevice\":\"tp4-data\",\"metadataDevice\":\"tp4-meta\"";
        mvc.perform(createPool("{\"name\":\"tp4\",\"type\":\"sparse\"" + devices + "}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("type"));
        mvc.perform(createPool("{\"name\":\"tp4\"" + devices + "}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("dataDevice"));
        mvc.perform(createPool("{\"name\":\"tp4\",\"type\":\"thin\",\"dataDevice\":\"tp4-data\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("metadataDevice"));
        mvc.perform(createPool("{\"name\":\"tp4\",\"type\":\"thin\",\"chunkSize\":\"96KiB\"" + devices + "}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("chunkSize"));
        mvc.perform(createPool("{\"name\":\"tp4\",\"type\":\"thin\",\"discards\":\"sometimes\"" + devices + "}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("discards"));
        mvc.perform(createPool("{\"name\":\"tp4\",\"type\":\"thin\",\"from\":\"nope\",\"size\":\"1MiB\"}"))
                .andExpect(problem(404, "not-found"));
        mvc.perform(createPool("{\"name\":\"tp4\",\"type\":\"thin\",\"dataDevice\":\"tp4-data\","
                + "\"metadataDevice\":\"tp4-data\"}")).andExpect(problem(400, "validation-failed"));
        mvc.perform(get("/api/v1/devices/tp4-data").with(admin())).andExpect(jsonPath("$.holders").isEmpty());
        mvc.perform(getPool("tp4")).andExpect(status().isNotFound());

        mvc.perform(createPool("{\"name\":\"tp4\",\"type\":\"thin\"" + devices + "}")).andExpect(status().isCreated());
        mvc.perform(createPool("tp4", "tp4-data", null)).andExpect(problem(409, "name-taken"));
        mvc.perform(createVolume("tp4", "tp4-v", 1000)).andExpect(problem(400, "validation-failed"));
        mvc.perform(createVolume("tp4", "tp4-v", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createVolume("tp4", "tp4-v", "1MiB")).andExpect(status().isOk());
        mvc.perform(createVolume("tp4", "tp4-v", "2MiB")).andExpect(problem(409, "name-taken"));
        // more than 2^40 chunks is a bad size, not a conflict of a volume that "cannot start"
        mvc.perform(createVolume("tp4", "tp4-huge", "8388607TiB"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        mvc.perform(getVolume("tp4", "tp4-huge")).andExpect(status().isNotFound());
        mvc.perform(resize("tp4", "tp4-v", "8388607TiB", false))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        mvc.perform(getVolume("tp4", "tp4-v")).andExpect(jsonPath("$.sizeBytes").value(1 << 20));
        mvc.perform(snapshot("tp4", "tp4-v", "{\"name\":\"tp4-v\"}")).andExpect(problem(409, "name-taken"));
        mvc.perform(deleteVolume("tp4", "tp4-v")).andExpect(status().isNoContent());
        mvc.perform(deletePool("tp4")).andExpect(status().isNoContent());
    }
}
