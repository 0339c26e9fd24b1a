package io.blockwork.api.pool;

import static io.blockwork.support.PoolRequests.createPool;
import static io.blockwork.support.PoolRequests.createVolume;
import static io.blockwork.support.PoolRequests.deletePool;
import static io.blockwork.support.PoolRequests.deleteVolume;
import static io.blockwork.support.PoolRequests.patchVolume;
import static io.blockwork.support.PoolRequests.resize;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.service.device.DeviceRegistry;
import io.blockwork.support.AppTest;
import io.blockwork.support.PoolRequests;
import io.blockwork.support.PoolState;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * Issue 7, acceptance 4: each kind of bad input gets its problem+json and changes nothing: the
 * registry, the live tables and the pools, volumes, allocation map and exports in the database are
 * exactly as before. One test per case.
 */
@AppTest
class PoolBadInputTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    DeviceRegistry registry;
    @Autowired
    JdbcTemplate jdbc;

    private void fixture(String p) throws Exception {
        PoolRequests.smallPool(mvc, p);
    }

    private ResultActions refused(String p, MockHttpServletRequestBuilder request) throws Exception {
        return PoolState.refused(mvc, jdbc, registry, p, request);
    }

    @Test
    void noSpaceForANewVolumeSaysHowMuchIsFree() throws Exception {
        fixture("bi-space");
        refused("bi-space", createVolume("bi-space", "bi-space-w", "1MiB"))
                .andExpect(problem(409, "insufficient-space"))
                .andExpect(jsonPath("$.field").value("size"))
                .andExpect(jsonPath("$.detail").value(containsString("free: 768 KiB (12 extents of 64 KiB)")))
                .andExpect(jsonPath("$.freeBytes").value(768 << 10))
                .andExpect(jsonPath("$.freeExtents").value(12))
                .andExpect(jsonPath("$.extentSizeBytes").value(64 << 10))
                .andExpect(jsonPath("$.neededExtents").value(16));
    }

    @Test
    void noSpaceForAnExtensionSaysHowMuchIsFree() throws Exception {
        fixture("bi-grow");
        refused("bi-grow", resize("bi-grow", "bi-grow-v", "+832KiB", false))
                .andExpect(problem(409, "insufficient-space"))
                .andExpect(jsonPath("$.freeExtents").value(12))
                .andExpect(jsonPath("$.neededExtents").value(13));
    }

    @Test
    void aVolumeNameTakenByAnotherKindOfDevice() throws Exception {
        fixture("bi-kind");
        refused("bi-kind", createVolume("bi-kind", "bi-kind-pv", "64KiB"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.takenBy").value("disk"));
    }

    @Test
    void aVolumeNameTakenByAVolumeOfAnotherSize() throws Exception {
        fixture("bi-dup");
        refused("bi-dup", createVolume("bi-dup", "bi-dup-v", "512KiB"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.takenBy").value("volume"));
    }

    @Test
    void aPoolNameTaken() throws Exception {
        fixture("bi-pname");
        mvc.perform(memoryDisk("bi-pname-pv2", "1MiB")).andExpect(status().isCreated());
        refused("bi-pname", createPool("bi-pname", "bi-pname-pv2", null))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.takenBy").value("pool"));
    }

    @Test
    void aRenameToATakenName() throws Exception {
        fixture("bi-ren");
        refused("bi-ren", patchVolume("bi-ren", "bi-ren-v", "{\"name\":\"bi-ren-pv\"}"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.field").value("name"));
    }

    @Test
    void aShrinkWithoutAcknowledgement() throws Exception {
        fixture("bi-shrink");
        refused("bi-shrink", resize("bi-shrink", "bi-shrink-v", "-64KiB", false))
                .andExpect(problem(409, "shrink-not-confirmed"))
                .andExpect(jsonPath("$.field").value("allowShrink"))
                .andExpect(jsonPath("$.sizeBytes").value(256 << 10))
                .andExpect(jsonPath("$.newSizeBytes").value(192 << 10));
        refused("bi-shrink", patchVolume("bi-shrink", "bi-shrink-v", "{\"size\":\"128KiB\",\"allowShrink\":false}"))
                .andExpect(problem(409, "shrink-not-confirmed"));
    }

    @Test
    void anUnknownPool() throws Exception {
        fixture("bi-nopool");
        refused("bi-nopool", createVolume("bi-nopool-x", "bi-nopool-w", "64KiB")).andExpect(problem(404, "not-found"))
                .andExpect(jsonPath("$.detail").value("no pool named 'bi-nopool-x'"));
    }

    @Test
    void anUnknownVolume() throws Exception {
        fixture("bi-novol");
        refused("bi-novol", resize("bi-novol", "bi-novol-w", "+64KiB", false)).andExpect(problem(404, "not-found"));
    }

    @Test
    void aSizeThatIsNotAWholeNumberOfSectors() throws Exception {
        fixture("bi-sector");
        refused("bi-sector", createVolume("bi-sector", "bi-sector-w", 1000))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"))
                .andExpect(jsonPath("$.sectorSize").value(512));
    }

    @Test
    void aSizeChangeThatIsNotAWholeNumberOfSectors() throws Exception {
        fixture("bi-delta");
        refused("bi-delta", patchVolume("bi-delta", "bi-delta-v", "{\"size\":\"+1000\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void aZeroSize() throws Exception {
        fixture("bi-zero");
        refused("bi-zero", createVolume("bi-zero", "bi-zero-w", 0))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void aNegativeSize() throws Exception {
        fixture("bi-neg");
        refused("bi-neg", createVolume("bi-neg", "bi-neg-w", "-1GiB"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        refused("bi-neg", createVolume("bi-neg", "{\"name\":\"bi-neg-w\",\"size\":-4096}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void aShrinkBelowZero() throws Exception {
        fixture("bi-below");
        refused("bi-below", resize("bi-below", "bi-below-v", "-1MiB", true))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        refused("bi-below", resize("bi-below", "bi-below-v", "-256KiB", true))
                .andExpect(problem(400, "validation-failed"));
    }

    @Test
    void aSizeThatIsNotASize() throws Exception {
        fixture("bi-text");
        refused("bi-text", patchVolume("bi-text", "bi-text-v", "{\"size\":\"ten gigs\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void anExtentSizeThatIsNotAPowerOfTwo() throws Exception {
        mvc.perform(memoryDisk("bi-es2-pv", "1MiB")).andExpect(status().isCreated());
        refused("bi-es2", createPool("bi-es2", "bi-es2-pv", "96KiB"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("extentSize"));
    }

    @Test
    void anExtentSizeBelow64KiB() throws Exception {
        mvc.perform(memoryDisk("bi-es32-pv", "1MiB")).andExpect(status().isCreated());
        refused("bi-es32", createPool("bi-es32", "bi-es32-pv", "32KiB"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("extentSize"));
    }

    @Test
    void anExtentLargerThanTheDevice() throws Exception {
        mvc.perform(memoryDisk("bi-esbig-pv", "1MiB")).andExpect(status().isCreated());
        refused("bi-esbig", createPool("bi-esbig", "bi-esbig-pv", "2MiB"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("extentSize"));
    }

    @Test
    void aPoolOnAnUnknownDevice() throws Exception {
        refused("bi-nodev", createPool("bi-nodev", "bi-nodev-pv", null))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("device"));
    }

    @Test
    void aPoolOnADeviceSomethingElseUses() throws Exception {
        mvc.perform(memoryDisk("bi-busy-pv", "1MiB")).andExpect(status().isCreated());
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"bi-busy-pv\"}")).andExpect(status().isCreated());
        refused("bi-busy", createPool("bi-busy", "bi-busy-pv", "64KiB"))
                .andExpect(problem(409, "device-busy")).andExpect(jsonPath("$.field").value("device"))
                .andExpect(jsonPath("$.holders[0]").value("export bi-busy-pv"));
    }

    @Test
    void aPoolOnADeviceAnotherPoolHas() throws Exception {
        fixture("bi-twice");
        refused("bi-twice", createPool("bi-twice2", "bi-twice-pv", "64KiB"))
                .andExpect(problem(409, "device-busy")).andExpect(jsonPath("$.holders[0]").value("pool bi-twice"));
    }

    @Test
    void deletingAPoolThatHasVolumes() throws Exception {
        fixture("bi-full");
        refused("bi-full", deletePool("bi-full")).andExpect(problem(409, "pool-not-empty"))
                .andExpect(jsonPath("$.volumes[0]").value("bi-full-v"));
    }

    @Test
    void deletingAnExportedVolumeWithoutForce() throws Exception {
        fixture("bi-exp");
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"bi-exp-v\"}")).andExpect(status().isCreated());
        refused("bi-exp", deleteVolume("bi-exp", "bi-exp-v")).andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders[0]").value("export bi-exp-v"));
    }

    @Test
    void renamingAnExportedVolume() throws Exception {
        fixture("bi-rexp");
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"bi-rexp-v\"}")).andExpect(status().isCreated());
        refused("bi-rexp", patchVolume("bi-rexp", "bi-rexp-v", "{\"name\":\"bi-rexp-w\"}"))
                .andExpect(problem(409, "device-busy"));
    }

    @Test
    void anEmptyChange() throws Exception {
        fixture("bi-empty");
        refused("bi-empty", patchVolume("bi-empty", "bi-empty-v", "{}")).andExpect(problem(400, "validation-failed"));
    }
}
