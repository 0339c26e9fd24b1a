package io.blockwork.pool.web;

import static io.blockwork.support.DmRequests.createDm;
import static io.blockwork.support.PoolRequests.POOLS;
import static io.blockwork.support.PoolRequests.createPool;
import static io.blockwork.support.PoolRequests.createVolume;
import static io.blockwork.support.PoolRequests.deletePool;
import static io.blockwork.support.PoolRequests.deleteVolume;
import static io.blockwork.support.PoolRequests.getPool;
import static io.blockwork.support.PoolRequests.getVolume;
import static io.blockwork.support.PoolRequests.listVolumes;
import static io.blockwork.support.PoolRequests.patchVolume;
import static io.blockwork.support.PoolRequests.resize;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.viewer;
import static io.blockwork.support.Requests.writeData;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/** The pools and volumes API as users drive it. */
@AppTest
class PoolApiTest {

    private static final int KIB = 1024;

    @Autowired
    MockMvc mvc;

    private void pool(String p, String diskSize, String extentSize) throws Exception {
        mvc.perform(memoryDisk(p + "-pv", diskSize)).andExpect(status().isCreated());
        mvc.perform(createPool(p, p + "-pv", extentSize)).andExpect(status().isCreated());
    }

    private static byte[] random(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void aPoolShowsItsCapacityAndFreeSpace() throws Exception {
        mvc.perform(memoryDisk("pa-cap-pv", "10MiB")).andExpect(status().isCreated());
        mvc.perform(createPool("{\"name\":\"pa-cap\",\"device\":\"pa-cap-pv\"}")).andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/v1/pools/pa-cap"))
                .andExpect(jsonPath("$.extentSizeBytes").value(4 << 20))
                .andExpect(jsonPath("$.deviceKind").value("disk"))
                .andExpect(jsonPath("$.deviceSizeBytes").value(10 << 20))
                // the 2 MiB tail is less than an extent
                .andExpect(jsonPath("$.capacityBytes").value(8 << 20))
                .andExpect(jsonPath("$.extents.total").value(2))
                .andExpect(jsonPath("$.state.actual").value("active"));
        mvc.perform(createVolume("pa-cap", "pa-cap-v", "1MiB")).andExpect(status().isCreated());
        mvc.perform(getPool("pa-cap")).andExpect(jsonPath("$.freeBytes").value(4 << 20))
                .andExpect(jsonPath("$.usedBytes").value(4 << 20))
                .andExpect(jsonPath("$.extents.free").value(1)).andExpect(jsonPath("$.extents.used").value(1))
                .andExpect(jsonPath("$.largestFreeRun.bytes").value(4 << 20))
                .andExpect(jsonPath("$.volumeCount").value(1)).andExpect(jsonPath("$.volumes[0]").value("pa-cap-v"));
        mvc.perform(get(POOLS).with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$[?(@.name == 'pa-cap')].volumeCount").value(1));
        mvc.perform(get("/api/v1/devices/pa-cap-pv").with(admin()))
                .andExpect(jsonPath("$.holders[0]").value("pool pa-cap"));
    }

    @Test
    void aVolumeIsABlockDeviceSizedInWholeExtents() throws Exception {
        pool("pa-vol", "1MiB", "64KiB");
        mvc.perform(createVolume("pa-vol", "pa-vol-v", "100KiB")).andExpect(status().isCreated())
                .andExpect(header().string("Location", "/api/v1/pools/pa-vol/volumes/pa-vol-v"))
                .andExpect(jsonPath("$.sizeBytes").value(128 * KIB))
                .andExpect(jsonPath("$.extents").value(2))
                .andExpect(jsonPath("$.sizeRequest.requestedBytes").value(100 * KIB))
                .andExpect(jsonPath("$.sizeRequest.roundedUpBytes").value(28 * KIB))
                .andExpect(jsonPath("$.sizeRequest.note").value("rounded up by 28672 bytes to whole extents of 64 KiB"))
                .andExpect(jsonPath("$.table").value("0 256 linear pa-vol-pv 0\n"));
        mvc.perform(get("/api/v1/devices/pa-vol-v").with(admin())).andExpect(jsonPath("$.kind").value("volume"))
                .andExpect(jsonPath("$.sizeBytes").value(128 * KIB));
        byte[] data = random(128 * KIB, 1);
        mvc.perform(writeData("pa-vol-v", 0, data)).andExpect(status().isNoContent());
        mvc.perform(readData("pa-vol-v", 0, data.length)).andExpect(content().bytes(data));
        mvc.perform(readData("pa-vol-v", 128 * KIB, 512)).andExpect(problem(400, "out-of-range"));
    }

    @Test
    void anIdenticalRetryOfACreateReturnsTheVolumeAndAllocatesNothing() throws Exception {
        pool("pa-retry", "1MiB", "64KiB");
        mvc.perform(createVolume("pa-retry", "pa-retry-v", "100KiB")).andExpect(status().isCreated());
        // the same request, and one asking for the same whole extents: 200, the same volume
        mvc.perform(createVolume("pa-retry", "pa-retry-v", "100KiB")).andExpect(status().isOk())
                .andExpect(header().string("Location", "/api/v1/pools/pa-retry/volumes/pa-retry-v"))
                .andExpect(jsonPath("$.sizeBytes").value(128 * KIB));
        mvc.perform(createVolume("pa-retry", "pa-retry-v", 128 * KIB)).andExpect(status().isOk());
        mvc.perform(getPool("pa-retry")).andExpect(jsonPath("$.extents.used").value(2));
        mvc.perform(createVolume("pa-retry", "pa-retry-v", "256KiB")).andExpect(problem(409, "name-taken"));
    }

    @Test
    void volumesAreListedLikeLvs() throws Exception {
        pool("pa-lvs", "1MiB", "64KiB");
        mvc.perform(createVolume("pa-lvs", "pa-lvs-v", "192KiB")).andExpect(status().isCreated());
        mvc.perform(listVolumes()).andExpect(status().isOk())
                .andExpect(jsonPath("$[?(@.name == 'pa-lvs-v')].pool").value("pa-lvs"))
                .andExpect(jsonPath("$[?(@.name == 'pa-lvs-v')].sizeBytes").value(192 * KIB))
                .andExpect(jsonPath("$[?(@.name == 'pa-lvs-v')].segmentCount").value(1))
                .andExpect(jsonPath("$[?(@.name == 'pa-lvs-v')].device").value("pa-lvs-v"))
                .andExpect(jsonPath("$[?(@.name == 'pa-lvs-v')].attributes").value("-wi-a-----"))
                .andExpect(jsonPath("$[?(@.name == 'pa-lvs-v')].exported").value(false))
                .andExpect(jsonPath("$[?(@.name == 'pa-lvs-v')].segments").doesNotExist());
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"name\":\"pa-lvs-e\",\"device\":\"pa-lvs-v\"}")).andExpect(status().isCreated());
        mvc.perform(get("/api/v1/pools/pa-lvs/volumes").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$[0].attributes").value("-wi-ao----"))
                .andExpect(jsonPath("$[0].exported").value(true))
                .andExpect(jsonPath("$[0].exports[0]").value("pa-lvs-e"));
        mvc.perform(getVolume("pa-lvs", "pa-lvs-v"))
                .andExpect(jsonPath("$.segments[0].volumeExtents.first").value(0))
                .andExpect(jsonPath("$.segments[0].volumeExtents.last").value(2))
                .andExpect(jsonPath("$.segments[0].poolExtents.first").value(0))
                .andExpect(jsonPath("$.segments[0].extents").value(3));
        mvc.perform(post(POOLS + "/pa-lvs/volumes").with(viewer()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"name\":\"pa-lvs-w\",\"size\":\"64KiB\"}")).andExpect(problem(403, "forbidden"));
    }

    @Test
    void anExtensionContinuesInPlaceAndKeepsTheData() throws Exception {
        pool("pa-grow", "1MiB", "64KiB");
        mvc.perform(createVolume("pa-grow", "pa-grow-v", "64KiB")).andExpect(status().isCreated());
        byte[] data = random(64 * KIB, 2);
        mvc.perform(writeData("pa-grow-v", 0, data)).andExpect(status().isNoContent());
        mvc.perform(resize("pa-grow", "pa-grow-v", "+128KiB", false)).andExpect(status().isOk())
                .andExpect(jsonPath("$.sizeBytes").value(192 * KIB)).andExpect(jsonPath("$.segmentCount").value(1))
                .andExpect(jsonPath("$.table").value("0 384 linear pa-grow-pv 0\n"));
        mvc.perform(resize("pa-grow", "pa-grow-v", "256KiB", false)).andExpect(status().isOk())
                .andExpect(jsonPath("$.sizeBytes").value(256 * KIB));
        mvc.perform(readData("pa-grow-v", 0, data.length)).andExpect(content().bytes(data));
        mvc.perform(resize("pa-grow", "pa-grow-v", "-128KiB", true)).andExpect(status().isOk())
                .andExpect(jsonPath("$.sizeBytes").value(128 * KIB));
        mvc.perform(readData("pa-grow-v", 0, data.length)).andExpect(content().bytes(data));
        mvc.perform(getPool("pa-grow")).andExpect(jsonPath("$.extents.used").value(2));
        // a size that rounds to the current extents changes nothing
        mvc.perform(resize("pa-grow", "pa-grow-v", "100KiB", false)).andExpect(status().isOk())
                .andExpect(jsonPath("$.sizeBytes").value(128 * KIB))
                .andExpect(jsonPath("$.sizeRequest.roundedUpBytes").value(28 * KIB));
    }

    @Test
    void renameByPatchOrByPost() throws Exception {
        pool("pa-ren", "1MiB", "64KiB");
        mvc.perform(createVolume("pa-ren", "pa-ren-a", "64KiB")).andExpect(status().isCreated());
        byte[] data = random(64 * KIB, 3);
        mvc.perform(writeData("pa-ren-a", 0, data)).andExpect(status().isNoContent());
        mvc.perform(patchVolume("pa-ren", "pa-ren-a", "{\"name\":\"pa-ren-b\"}")).andExpect(status().isOk())
                .andExpect(header().string("Location", "/api/v1/pools/pa-ren/volumes/pa-ren-b"))
                .andExpect(jsonPath("$.name").value("pa-ren-b")).andExpect(jsonPath("$.device").value("pa-ren-b"));
        mvc.perform(post(POOLS + "/pa-ren/volumes/pa-ren-b/rename").with(admin())
                .contentType(MediaType.APPLICATION_JSON).content("{\"newName\":\"pa-ren-c\"}"))
                .andExpect(status().isOk()).andExpect(jsonPath("$.name").value("pa-ren-c"));
        // a refusal names the field of the request that was sent: newName here, name in a PATCH
        mvc.perform(post(POOLS + "/pa-ren/volumes/pa-ren-c/rename").with(admin())
                .contentType(MediaType.APPLICATION_JSON).content("{\"newName\":\"pa-ren-pv\"}"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.field").value("newName"));
        mvc.perform(patchVolume("pa-ren", "pa-ren-c", "{\"name\":\"pa-ren-pv\"}"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.field").value("name"));
        mvc.perform(get("/api/v1/devices/pa-ren-a").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(getVolume("pa-ren", "pa-ren-b")).andExpect(problem(404, "not-found"));
        mvc.perform(readData("pa-ren-c", 0, data.length)).andExpect(content().bytes(data));
        // both at once: grow and rename
        mvc.perform(patchVolume("pa-ren", "pa-ren-c", "{\"size\":\"+64KiB\",\"name\":\"pa-ren-d\"}"))
                .andExpect(status().isOk()).andExpect(jsonPath("$.name").value("pa-ren-d"))
                .andExpect(jsonPath("$.sizeBytes").value(128 * KIB));
    }

    @Test
    void thePoolKeepsItsDeviceToItself() throws Exception {
        pool("pa-excl", "1MiB", "64KiB");
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"pa-excl-pv\"}")).andExpect(problem(409, "device-busy"));
        mvc.perform(createDm("pa-excl-dm", "0 8 linear pa-excl-pv 0")).andExpect(problem(409, "device-busy"));
        mvc.perform(delete("/api/v1/disks/pa-excl-pv").with(admin())).andExpect(problem(409, "device-busy"));
        mvc.perform(delete("/api/v1/disks/pa-excl-pv?force=true").with(admin())).andExpect(problem(409, "device-busy"));
        mvc.perform(get("/api/v1/devices").with(admin())).andExpect(jsonPath("$[*].name", not(hasItem("pa-excl-dm"))));
    }

    @Test
    void deleteFreesTheExtentsAndForceDropsExports() throws Exception {
        pool("pa-del", "1MiB", "64KiB");
        mvc.perform(createVolume("pa-del", "pa-del-v", "512KiB")).andExpect(status().isCreated());
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"pa-del-v\"}")).andExpect(status().isCreated());
        mvc.perform(deleteVolume("pa-del", "pa-del-v")).andExpect(problem(409, "device-busy"));
        mvc.perform(delete(POOLS + "/pa-del/volumes/pa-del-v?force=true").with(admin())).andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/exports/pa-del-v").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/pa-del-v").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(getPool("pa-del")).andExpect(jsonPath("$.extents.free").value(16))
                .andExpect(jsonPath("$.volumeCount").value(0));
        mvc.perform(deletePool("pa-del")).andExpect(status().isNoContent());
        mvc.perform(getPool("pa-del")).andExpect(problem(404, "not-found"));
        mvc.perform(get("/api/v1/devices/pa-del-pv").with(admin())).andExpect(jsonPath("$.holders").isEmpty());
        mvc.perform(delete("/api/v1/disks/pa-del-pv").with(admin())).andExpect(status().isNoContent());
    }

    @Test
    void aPoolCanLieOnAMappedDevice() throws Exception {
        mvc.perform(memoryDisk("pa-dm-pv", "2MiB")).andExpect(status().isCreated());
        mvc.perform(createDm("pa-dm-lin", "0 2048 linear pa-dm-pv 2048")).andExpect(status().isCreated());
        mvc.perform(createPool("pa-dm", "pa-dm-lin", "64KiB")).andExpect(status().isCreated())
                .andExpect(jsonPath("$.deviceKind").value("dm")).andExpect(jsonPath("$.extents.total").value(16));
        mvc.perform(createVolume("pa-dm", "pa-dm-v", "128KiB")).andExpect(status().isCreated())
                .andExpect(jsonPath("$.table").value("0 256 linear pa-dm-lin 0\n"));
        byte[] data = random(128 * KIB, 4);
        mvc.perform(writeData("pa-dm-v", 0, data)).andExpect(status().isNoContent());
        // the mapped device starts at the disk's second MiB
        mvc.perform(readData("pa-dm-pv", 1 << 20, data.length)).andExpect(content().bytes(data));
        mvc.perform(delete("/api/v1/dm/devices/pa-dm-lin").with(admin())).andExpect(problem(409, "device-busy"));
    }
}
