package io.blockwork.pool.web;

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

import io.blockwork.shared.device.DeviceRegistry;
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
        fixture("pbi-space");
        refused("pbi-space", createVolume("pbi-space", "pbi-space-w", "1MiB"))
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
        fixture("pbi-grow");
        refused("pbi-grow", resize("pbi-grow", "pbi-grow-v", "+832KiB", false))
                .andExpect(problem(409, "insufficient-space"))
                .andExpect(jsonPath("$.freeExtents").value(12))
                .andExpect(jsonPath("$.neededExtents").value(13));
    }

    @Test
    void aVolumeNameTakenByAnotherKindOfDevice() throws Exception {
        fixture("pbi-kind");
        refused("pbi-kind", createVolume("pbi-kind", "pbi-kind-pv", "64KiB"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.takenBy").value("disk"));
    }

    @Test
    void aVolumeNameTakenByAVolumeOfAnotherSize() throws Exception {
        fixture("pbi-dup");
        refused("pbi-dup", createVolume("pbi-dup", "pbi-dup-v", "512KiB"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.takenBy").value("volume"));
    }

    @Test
    void aPoolNameTaken() throws Exception {
        fixture("pbi-pname");
        mvc.perform(memoryDisk("pbi-pname-pv2", "1MiB")).andExpect(status().isCreated());
        refused("pbi-pname", createPool("pbi-pname", "pbi-pname-pv2", null))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.takenBy").value("pool"));
    }

    @Test
    void aRenameToATakenName() throws Exception {
        fixture("pbi-ren");
        refused("pbi-ren", patchVolume("pbi-ren", "pbi-ren-v", "{\"name\":\"pbi-ren-pv\"}"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.field").value("name"));
    }

    @Test
    void aShrinkWithoutAcknowledgement() throws Exception {
        fixture("pbi-shrink");
        refused("pbi-shrink", resize("pbi-shrink", "pbi-shrink-v", "-64KiB", false))
                .andExpect(problem(409, "shrink-not-confirmed"))
                .andExpect(jsonPath("$.field").value("allowShrink"))
                .andExpect(jsonPath("$.sizeBytes").value(256 << 10))
                .andExpect(jsonPath("$.newSizeBytes").value(192 << 10));
        refused("pbi-shrink", patchVolume("pbi-shrink", "pbi-shrink-v", "{\"size\":\"128KiB\",\"allowShrink\":false}"))
                .andExpect(problem(409, "shrink-not-confirmed"));
    }

    @Test
    void anUnknownPool() throws Exception {
        fixture("pbi-nopool");
        refused("pbi-nopool", createVolume("pbi-nopool-x", "pbi-nopool-w", "64KiB")).andExpect(problem(404, "not-found"))
                .andExpect(jsonPath("$.detail").value("no pool named 'pbi-nopool-x'"));
    }

    @Test
    void anUnknownVolume() throws Exception {
        fixture("pbi-novol");
        refused("pbi-novol", resize("pbi-novol", "pbi-novol-w", "+64KiB", false)).andExpect(problem(404, "not-found"));
    }

    @Test
    void aSizeThatIsNotAWholeNumberOfSectors() throws Exception {
        fixture("pbi-sector");
        refused("pbi-sector", createVolume("pbi-sector", "pbi-sector-w", 1000))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"))
                .andExpect(jsonPath("$.sectorSize").value(512));
    }

    @Test
    void aSizeChangeThatIsNotAWholeNumberOfSectors() throws Exception {
        fixture("pbi-delta");
        refused("pbi-delta", patchVolume("pbi-delta", "pbi-delta-v", "{\"size\":\"+1000\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void aZeroSize() throws Exception {
        fixture("pbi-zero");
        refused("pbi-zero", createVolume("pbi-zero", "pbi-zero-w", 0))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void aNegativeSize() throws Exception {
        fixture("pbi-neg");
        refused("pbi-neg", createVolume("pbi-neg", "pbi-neg-w", "-1GiB"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        refused("pbi-neg", createVolume("pbi-neg", "{\"name\":\"pbi-neg-w\",\"size\":-4096}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void aShrinkBelowZero() throws Exception {
        fixture("pbi-below");
        refused("pbi-below", resize("pbi-below", "pbi-below-v", "-1MiB", true))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        refused("pbi-below", resize("pbi-below", "pbi-below-v", "-256KiB", true))
                .andExpect(problem(400, "validation-failed"));
    }

    @Test
    void aSizeThatIsNotASize() throws Exception {
        fixture("pbi-text");
        refused("pbi-text", patchVolume("pbi-text", "pbi-text-v", "{\"size\":\"ten gigs\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void anExtentSizeThatIsNotAPowerOfTwo() throws Exception {
        mvc.perform(memoryDisk("pbi-es2-pv", "1MiB")).andExpect(status().isCreated());
        refused("pbi-es2", createPool("pbi-es2", "pbi-es2-pv", "96KiB"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("extentSize"));
    }

    @Test
    void anExtentSizeBelow64KiB() throws Exception {
        mvc.perform(memoryDisk("pbi-es32-pv", "1MiB")).andExpect(status().isCreated());
        refused("pbi-es32", createPool("pbi-es32", "pbi-es32-pv", "32KiB"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("extentSize"));
    }

    @Test
    void anExtentLargerThanTheDevice() throws Exception {
        mvc.perform(memoryDisk("pbi-esbig-pv", "1MiB")).andExpect(status().isCreated());
        refused("pbi-esbig", createPool("pbi-esbig", "pbi-esbig-pv", "2MiB"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("extentSize"));
    }

    @Test
    void aPoolOnAnUnknownDevice() throws Exception {
        refused("pbi-nodev", createPool("pbi-nodev", "pbi-nodev-pv", null))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("device"));
    }

    @Test
    void aPoolOnADeviceSomethingElseUses() throws Exception {
        mvc.perform(memoryDisk("pbi-busy-pv", "1MiB")).andExpect(status().isCreated());
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"pbi-busy-pv\"}")).andExpect(status().isCreated());
        refused("pbi-busy", createPool("pbi-busy", "pbi-busy-pv", "64KiB"))
                .andExpect(problem(409, "device-busy")).andExpect(jsonPath("$.field").value("device"))
                .andExpect(jsonPath("$.holders[0]").value("export pbi-busy-pv"));
    }

    @Test
    void aPoolOnADeviceAnotherPoolHas() throws Exception {
        fixture("pbi-twice");
        refused("pbi-twice", createPool("pbi-twice2", "pbi-twice-pv", "64KiB"))
                .andExpect(problem(409, "device-busy")).andExpect(jsonPath("$.holders[0]").value("pool pbi-twice"));
    }

    @Test
    void deletingAPoolThatHasVolumes() throws Exception {
        fixture("pbi-full");
        refused("pbi-full", deletePool("pbi-full")).andExpect(problem(409, "pool-not-empty"))
                .andExpect(jsonPath("$.volumes[0]").value("pbi-full-v"));
    }

    @Test
    void deletingAnExportedVolumeWithoutForce() throws Exception {
        fixture("pbi-exp");
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"pbi-exp-v\"}")).andExpect(status().isCreated());
        refused("pbi-exp", deleteVolume("pbi-exp", "pbi-exp-v")).andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders[0]").value("export pbi-exp-v"));
    }

    @Test
    void renamingAnExportedVolume() throws Exception {
        fixture("pbi-rexp");
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"pbi-rexp-v\"}")).andExpect(status().isCreated());
        refused("pbi-rexp", patchVolume("pbi-rexp", "pbi-rexp-v", "{\"name\":\"pbi-rexp-w\"}"))
                .andExpect(problem(409, "device-busy"));
    }

    @Test
    void anEmptyChange() throws Exception {
        fixture("pbi-empty");
        refused("pbi-empty", patchVolume("pbi-empty", "pbi-empty-v", "{}")).andExpect(problem(400, "validation-failed"));
    }
}
