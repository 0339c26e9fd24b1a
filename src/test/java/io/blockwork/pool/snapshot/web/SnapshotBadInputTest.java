package io.blockwork.pool.snapshot.web;

import static io.blockwork.support.PoolRequests.createSnapshot;
import static io.blockwork.support.PoolRequests.deleteSnapshot;
import static io.blockwork.support.PoolRequests.deleteVolume;
import static io.blockwork.support.PoolRequests.getSnapshot;
import static io.blockwork.support.PoolRequests.mergeSnapshot;
import static io.blockwork.support.PoolRequests.patchVolume;
import static io.blockwork.support.PoolRequests.resize;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.patch;
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
 * Issue 9: each kind of bad snapshot input gets its problem+json, naming the field where there is
 * one, and changes nothing: registry entries, live tables, and the rows of pools, volumes, the
 * allocation map, exports and snapshots are exactly as before. One test per case.
 */
@AppTest
class SnapshotBadInputTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    DeviceRegistry registry;
    @Autowired
    JdbcTemplate jdbc;

    private void fixture(String p) throws Exception {
        PoolRequests.smallPool(mvc, p);
    }

    /** The fixture with snapshot {@code p}-s of 128 KiB. */
    private void withSnapshot(String p) throws Exception {
        fixture(p);
        mvc.perform(createSnapshot(p, p + "-v", p + "-s", "128KiB")).andExpect(status().isCreated());
    }

    private ResultActions refused(String p, MockHttpServletRequestBuilder request) throws Exception {
        return PoolState.refused(mvc, jdbc, registry, p, request);
    }

    @Test
    void unknownVolume() throws Exception {
        fixture("sb-uv");
        refused("sb-uv", createSnapshot("sb-uv", "sb-uv-nope", "sb-uv-s", "64KiB")).andExpect(problem(404, "not-found"))
                .andExpect(jsonPath("$.detail").value(containsString("sb-uv-nope")));
    }

    @Test
    void unknownSnapshot() throws Exception {
        fixture("sb-us");
        refused("sb-us", mergeSnapshot("sb-us", "sb-us-v", "sb-us-nope")).andExpect(problem(404, "not-found"));
    }

    @Test
    void nameTakenByAnotherDevice() throws Exception {
        fixture("sb-nt");
        refused("sb-nt", createSnapshot("sb-nt", "sb-nt-v", "sb-nt-pv", "64KiB")).andExpect(problem(409, "name-taken"))
                .andExpect(jsonPath("$.field").value("name")).andExpect(jsonPath("$.takenBy").value("disk"));
    }

    @Test
    void nameWhoseCowDeviceNameIsTaken() throws Exception {
        fixture("sb-cn");
        mvc.perform(memoryDisk("sb-cn-x-cow", "64KiB")).andExpect(status().isCreated());
        refused("sb-cn", createSnapshot("sb-cn", "sb-cn-v", "sb-cn-x", "64KiB")).andExpect(problem(409, "name-taken"))
                .andExpect(jsonPath("$.field").value("name"));
    }

    @Test
    void sizeLargerThanTheFreeSpace() throws Exception {
        fixture("sb-ns");
        refused("sb-ns", createSnapshot("sb-ns", "sb-ns-v", "sb-ns-s", "1MiB"))
                .andExpect(problem(409, "insufficient-space")).andExpect(jsonPath("$.field").value("size"))
                .andExpect(jsonPath("$.freeBytes").value(768 * 1024));
    }

    @Test
    void sizeMissing() throws Exception {
        fixture("sb-sm");
        refused("sb-sm", createSnapshot("sb-sm", "sb-sm-v", "{\"name\":\"sb-sm-s\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void chunkSizeNotAPowerOfTwo() throws Exception {
        fixture("sb-cs");
        refused("sb-cs", createSnapshot("sb-cs", "sb-cs-v", "{\"name\":\"sb-cs-s\",\"size\":\"64KiB\",\"chunkSize\":\"12KiB\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("chunkSize"));
    }

    @Test
    void cowSpaceTooSmallForItsChunks() throws Exception {
        fixture("sb-ts");
        refused("sb-ts", createSnapshot("sb-ts", "sb-ts-v", "{\"name\":\"sb-ts-s\",\"size\":\"64KiB\",\"chunkSize\":\"64KiB\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void resizeAVolumeWithSnapshots() throws Exception {
        withSnapshot("sb-rs");
        refused("sb-rs", resize("sb-rs", "sb-rs-v", "512KiB", false)).andExpect(problem(409, "has-snapshots"))
                .andExpect(jsonPath("$.field").value("size")).andExpect(jsonPath("$.snapshots[0]").value("sb-rs-s"));
    }

    /** The request is wrong whatever the volume's state: its size is checked before its snapshots. */
    @Test
    void aBadSizeForAVolumeWithSnapshotsIsABadSize() throws Exception {
        withSnapshot("sb-bs");
        refused("sb-bs", resize("sb-bs", "sb-bs-v", "1000", false)).andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("size"));
    }

    @Test
    void renameAVolumeWithSnapshots() throws Exception {
        withSnapshot("sb-rn");
        refused("sb-rn", patchVolume("sb-rn", "sb-rn-v", "{\"name\":\"sb-rn-w\"}")).andExpect(problem(409, "has-snapshots"))
                .andExpect(jsonPath("$.field").value("name"));
    }

    @Test
    void deleteAVolumeWithSnapshotsWithoutForce() throws Exception {
        withSnapshot("sb-dv");
        refused("sb-dv", deleteVolume("sb-dv", "sb-dv-v")).andExpect(problem(409, "has-snapshots"))
                .andExpect(jsonPath("$.detail").value(containsString("force=true")));
    }

    @Test
    void deleteAnExportedSnapshotWithoutForce() throws Exception {
        withSnapshot("sb-de");
        export("sb-de-s");
        refused("sb-de", deleteSnapshot("sb-de", "sb-de-v", "sb-de-s")).andExpect(problem(409, "device-busy"))
                .andExpect(jsonPath("$.holders[0]").value("export sb-de-s"));
    }

    @Test
    void mergeAnExportedSnapshot() throws Exception {
        withSnapshot("sb-me");
        export("sb-me-s");
        refused("sb-me", mergeSnapshot("sb-me", "sb-me-v", "sb-me-s")).andExpect(problem(409, "device-busy"));
    }

    @Test
    void mergeATransientSnapshot() throws Exception {
        fixture("sb-mt");
        mvc.perform(createSnapshot("sb-mt", "sb-mt-v", "{\"name\":\"sb-mt-s\",\"size\":\"64KiB\",\"persistent\":false}"))
                .andExpect(status().isCreated()).andExpect(jsonPath("$.persistent").value(false));
        refused("sb-mt", mergeSnapshot("sb-mt", "sb-mt-v", "sb-mt-s")).andExpect(problem(409, "not-supported"));
    }

    /**
     * A merge whose copies fail (the pool's disk refuses writes) stays merging, so a second merge
     * is refused deterministically; so are new snapshots and deleting the merging one.
     */
    @Test
    void mergeWhileAMergeRuns() throws Exception {
        withSnapshot("sb-mm");
        mvc.perform(createSnapshot("sb-mm", "sb-mm-v", "sb-mm-t", "128KiB")).andExpect(status().isCreated());
        mvc.perform(io.blockwork.support.Requests.writeData("sb-mm-v", 0, new byte[8192]))
                .andExpect(status().isNoContent());
        mvc.perform(patch("/api/v1/disks/sb-mm-pv").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"faults\":{\"failWrites\":true}}")).andExpect(status().isOk());
        mvc.perform(mergeSnapshot("sb-mm", "sb-mm-v", "sb-mm-s")).andExpect(status().isAccepted());

        refused("sb-mm", mergeSnapshot("sb-mm", "sb-mm-v", "sb-mm-t")).andExpect(problem(409, "invalid-state"))
                .andExpect(jsonPath("$.merging").value("sb-mm-s"));
        refused("sb-mm", createSnapshot("sb-mm", "sb-mm-v", "sb-mm-u", "64KiB")).andExpect(problem(409, "invalid-state"));
        refused("sb-mm", deleteSnapshot("sb-mm", "sb-mm-v", "sb-mm-s")).andExpect(problem(409, "invalid-state"));
        mvc.perform(getSnapshot("sb-mm", "sb-mm-v", "sb-mm-s"))
                .andExpect(jsonPath("$.state").value(org.hamcrest.Matchers.oneOf("merging", "merge-failed")));
    }

    private void export(String device) throws Exception {
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"device\":\"" + device + "\",\"readOnly\":true}")).andExpect(status().isCreated());
    }
}
