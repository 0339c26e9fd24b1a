package io.blockwork.topology.web;

import static io.blockwork.support.PoolRequests.createPool;
import static io.blockwork.support.PoolRequests.createSnapshot;
import static io.blockwork.support.PoolRequests.createVolume;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.viewer;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.not;

import io.blockwork.support.AppTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;

/**
 * The blast radius on real stacks: brm-n2 (raid10 n2 over br-1..4, copies on 1+2 and 3+4), brm-f2
 * (raid10 f2 over br-f1..4: every chunk's second copy on the next member), brm-r0 (raid0 over
 * br-5, br-6), a pool and a volume on each, a snapshot of the raid10 volume, an export of the raid0 one.
 */
@AppTest
class BlastRadiusApiTest {

    @Autowired
    MockMvc mvc;

    private static boolean built;

    @BeforeEach
    void stacks() throws Exception {
        if (built) {
            return;
        }
        for (String d : new String[] {"br-1", "br-2", "br-3", "br-4", "br-5", "br-6", "br-f1", "br-f2", "br-f3", "br-f4"}) {
            mvc.perform(memoryDisk(d, "8MiB")).andExpect(status().isCreated());
        }
        array("{\"name\":\"brm-n2\",\"level\":\"10\",\"layout\":\"n2\",\"assumeClean\":true,"
                + "\"members\":[\"br-1\",\"br-2\",\"br-3\",\"br-4\"]}");
        array("{\"name\":\"brm-f2\",\"level\":\"10\",\"layout\":\"f2\",\"assumeClean\":true,"
                + "\"members\":[\"br-f1\",\"br-f2\",\"br-f3\",\"br-f4\"]}");
        array("{\"name\":\"brm-r0\",\"level\":\"0\",\"members\":[\"br-5\",\"br-6\"]}");
        for (String[] p : new String[][] {{"brp-n2", "brm-n2", "brv-n2"}, {"brp-f2", "brm-f2", "brv-f2"}, {"brp-r0", "brm-r0", "brv-r0"}}) {
            mvc.perform(createPool(p[0], p[1], "1MiB")).andExpect(status().isCreated());
            mvc.perform(createVolume(p[0], p[2], "4MiB")).andExpect(status().isCreated());
        }
        mvc.perform(createSnapshot("brp-n2", "brv-n2", "brs-n2", "2MiB")).andExpect(status().isCreated());
        export("brx-r0", "brv-r0");
        built = true;
    }

    private void array(String json) throws Exception {
        var response = mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON).content(json))
                .andReturn().getResponse();
        assertThat(response.getStatus()).as(response.getContentAsString()).isEqualTo(201);
    }

    private ResultActions fail(String... devices) throws Exception {
        return mvc.perform(get("/api/v1/topology/blast-radius").with(viewer()).param("failed", devices))
                .andExpect(status().isOk());
    }

    @Test
    void oneRaid10MemberCostsItsVolumesRedundancyAndNoData() throws Exception {
        fail("br-1").andExpect(jsonPath("$.losesData", empty()))
                .andExpect(jsonPath("$.losesRedundancy", containsInAnyOrder("brm-n2", "pool:brp-n2", "brv-n2", "brs-n2")));
    }

    @Test
    void bothCopiesOfAChunkLoseTheVolumeAndItsSnapshotButNothingElse() throws Exception {
        fail("br-1", "br-2").andExpect(jsonPath("$.losesData", containsInAnyOrder("brm-n2", "pool:brp-n2", "brv-n2", "brs-n2")))
                .andExpect(jsonPath("$.losesRedundancy", empty()));
    }

    @Test
    void theLayoutDecidesWhichPairsOfMembersLoseData() throws Exception {
        // n2 keeps chunk copies on slots 0+1 and 2+3: losing slots 1 and 2 only degrades it;
        // f2 puts every chunk's far copy on the next slot, so slots 1 and 2 share a chunk.
        fail("br-2", "br-3").andExpect(jsonPath("$.losesData", not(hasItem("brv-n2"))))
                .andExpect(jsonPath("$.losesRedundancy", hasItem("brv-n2")));
        fail("br-f2", "br-f3").andExpect(jsonPath("$.losesData", hasItems("brm-f2", "brv-f2")));
        fail("br-f1", "br-f3").andExpect(jsonPath("$.losesData", empty()));
    }

    @Test
    void anyRaid0MemberLosesItsVolumeAndExport() throws Exception {
        fail("br-6").andExpect(jsonPath("$.losesData", containsInAnyOrder("brm-r0", "pool:brp-r0", "brv-r0", "export:brx-r0")))
                .andExpect(jsonPath("$.losesRedundancy", empty()));
    }

    @Test
    void theGraphListsWhatEachObjectIsBuiltOnWithItsHealth() throws Exception {
        mvc.perform(get("/api/v1/topology").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$[?(@.id == 'brm-n2')].uses[*]", containsInAnyOrder("br-1", "br-2", "br-3", "br-4")))
                .andExpect(jsonPath("$[?(@.id == 'brm-n2')].health", containsInAnyOrder("ok")))
                .andExpect(jsonPath("$[?(@.id == 'brv-n2')].uses[*]", containsInAnyOrder("pool:brp-n2")))
                .andExpect(jsonPath("$[?(@.id == 'brs-n2')].uses[*]", containsInAnyOrder("brv-n2")))
                .andExpect(jsonPath("$[?(@.id == 'export:brx-r0')].uses[*]", containsInAnyOrder("brv-r0")))
                .andExpect(jsonPath("$[?(@.kind == 'hidden')]", empty()));
    }

    /**
     * Issue 30's finding, as it was seen: a thin pool carved from a classic pool on one disk, with
     * a thin volume, beside that pool's volume, its snapshot and its export. The thin pool and its
     * volume were missing from the graph, so the disk's failure did not name them.
     */
    @Test
    void aThinPoolCarvedFromAPoolLosesItsDataWithThePoolsDisk() throws Exception {
        mvc.perform(memoryDisk("bt-s1", "64MiB")).andExpect(status().isCreated());
        mvc.perform(createPool("bt-svg", "bt-s1", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createVolume("bt-svg", "bt-sv", "8MiB")).andExpect(status().isCreated());
        mvc.perform(createSnapshot("bt-svg", "bt-sv", "bt-sv-snap", "4MiB")).andExpect(status().isCreated());
        export("bt-sv", "bt-sv");
        mvc.perform(createPool("{\"name\":\"bt-tp\",\"type\":\"thin\",\"from\":\"bt-svg\",\"size\":\"8MiB\"}"))
                .andExpect(status().isCreated());
        mvc.perform(createVolume("bt-tp", "bt-tv", "16MiB")).andExpect(status().isCreated());

        fail("bt-s1").andExpect(jsonPath("$.losesData", containsInAnyOrder("export:bt-sv", "pool:bt-svg", "bt-sv",
                        "bt-sv-snap", "pool:bt-tp", "bt-tv")))
                .andExpect(jsonPath("$.losesRedundancy", empty()));
        mvc.perform(get("/api/v1/topology").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$[?(@.id == 'pool:bt-tp')].kind", containsInAnyOrder("pool")))
                .andExpect(jsonPath("$[?(@.id == 'pool:bt-tp')].uses[*]", containsInAnyOrder("pool:bt-svg")))
                .andExpect(jsonPath("$[?(@.id == 'bt-tv')].uses[*]", containsInAnyOrder("pool:bt-tp")));
    }

    /**
     * A thin pool on two devices needs both: its data on a raid1 only degrades with one leg, its
     * metadata disk takes every thin volume and snapshot (and the snapshot's export) with it.
     */
    @Test
    void aThinPoolOnDevicesNeedsItsDataAndItsMetadata() throws Exception {
        for (String d : new String[] {"bt-d1", "bt-d2", "bt-meta"}) {
            mvc.perform(memoryDisk(d, "8MiB")).andExpect(status().isCreated());
        }
        array("{\"name\":\"bt-md1\",\"level\":\"1\",\"assumeClean\":true,\"members\":[\"bt-d1\",\"bt-d2\"]}");
        mvc.perform(createPool("{\"name\":\"bt-tp2\",\"type\":\"thin\",\"dataDevice\":\"bt-md1\","
                + "\"metadataDevice\":\"bt-meta\"}")).andExpect(status().isCreated());
        mvc.perform(createVolume("bt-tp2", "bt-tv2", "1GiB")).andExpect(status().isCreated());
        mvc.perform(createSnapshot("bt-tp2", "bt-tv2", "{\"name\":\"bt-ts2\"}")).andExpect(status().isCreated());
        export("bt-ts2", "bt-ts2");

        mvc.perform(get("/api/v1/topology").with(viewer())).andExpect(status().isOk())
                .andExpect(jsonPath("$[?(@.id == 'pool:bt-tp2')].uses[*]", containsInAnyOrder("bt-md1", "bt-meta")))
                .andExpect(jsonPath("$[?(@.id == 'bt-ts2')].uses[*]", containsInAnyOrder("pool:bt-tp2")));
        fail("bt-d1").andExpect(jsonPath("$.losesData", empty()))
                .andExpect(jsonPath("$.losesRedundancy", containsInAnyOrder("bt-md1", "pool:bt-tp2", "bt-tv2", "bt-ts2",
                        "export:bt-ts2")));
        fail("bt-meta").andExpect(jsonPath("$.losesData", containsInAnyOrder("pool:bt-tp2", "bt-tv2", "bt-ts2",
                        "export:bt-ts2")))
                .andExpect(jsonPath("$.losesRedundancy", empty()));
    }

    private void export(String name, String device) throws Exception {
        mvc.perform(post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"name\":\"" + name + "\",\"device\":\"" + device + "\"}")).andExpect(status().isCreated());
    }

    @Test
    void anUnknownObjectIsNotFound() throws Exception {
        mvc.perform(get("/api/v1/topology/blast-radius").with(viewer()).param("failed", "br-nope"))
                .andExpect(status().isNotFound());
    }
}
