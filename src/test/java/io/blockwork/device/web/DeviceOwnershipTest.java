package io.blockwork.device.web;

import static io.blockwork.support.DmRequests.createDm;
import static io.blockwork.support.PoolRequests.createSnapshot;
import static io.blockwork.support.PoolRequests.smallPool;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.writeData;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * Who may write a device: a device an array, pool, snapshot or mapped device uses refuses every
 * other writer (data endpoints, exports, tables) with device-busy naming the holder, unless the
 * request asks for raw access and the holder allows it; hidden devices refuse everyone from outside.
 */
@AppTest
class DeviceOwnershipTest {

    private static final byte[] BLOCK = new byte[512];

    @Autowired
    MockMvc mvc;

    @Test
    void anArrayMemberIsTheArraysAloneUnlessRawAccessIsAsked() throws Exception {
        mvc.perform(memoryDisk("own-a", "4MiB")).andExpect(status().isCreated());
        mvc.perform(memoryDisk("own-b", "4MiB")).andExpect(status().isCreated());
        mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"name\":\"own-md\",\"level\":\"raid1\",\"members\":[\"own-a\",\"own-b\"],\"assumeClean\":true}"))
                .andExpect(status().isCreated());

        busy(mvc.perform(writeData("own-b", 0, BLOCK)), "array own-md").andExpect(jsonPath("$.detail",
                containsString("raw=true")));
        busy(mvc.perform(discard("own-b", false)), "array own-md");
        busy(mvc.perform(export("own-bx", "own-b", "")), "array own-md").andExpect(jsonPath("$.field").value("device"));
        busy(mvc.perform(export("own-bx", "own-b", ",\"readOnly\":true")), "array own-md");
        busy(mvc.perform(createDm("own-lin", "0 8 linear own-b 0")), "array own-md");
        mvc.perform(readData("own-b", 0, 512)).andExpect(status().isOk());

        mvc.perform(writeData("own-b", 0, BLOCK).param("raw", "true")).andExpect(status().isNoContent());
        mvc.perform(discard("own-b", true)).andExpect(status().isNoContent());
        mvc.perform(export("own-bx", "own-b", ",\"raw\":true")).andExpect(status().isCreated())
                .andExpect(jsonPath("$.raw").value(true));
        mvc.perform(delete("/api/v1/exports/own-bx").with(admin())).andExpect(status().isNoContent());
    }

    @Test
    void aMappedDevicesLowerDeviceTakesRawWritersOnlyAndReadOnlyExports() throws Exception {
        mvc.perform(memoryDisk("own-low", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createDm("own-top", "0 16 linear own-low 0")).andExpect(status().isCreated());
        busy(mvc.perform(writeData("own-low", 0, BLOCK)), "dm own-top");
        busy(mvc.perform(export("own-lowx", "own-low", "")), "dm own-top");
        mvc.perform(export("own-lowro", "own-low", ",\"readOnly\":true")).andExpect(status().isCreated());
        mvc.perform(createDm("own-top2", "0 16 linear own-low 16")).andExpect(status().isCreated());
        mvc.perform(writeData("own-low", 0, BLOCK).param("raw", "true")).andExpect(status().isNoContent());
        mvc.perform(writeData("own-top", 0, BLOCK)).andExpect(status().isNoContent());
    }

    @Test
    void aDeviceExportedForWritingIsNotMappedOrPooled() throws Exception {
        mvc.perform(memoryDisk("own-exp", "1MiB")).andExpect(status().isCreated());
        mvc.perform(export("own-expx", "own-exp", "")).andExpect(status().isCreated());
        busy(mvc.perform(createDm("own-expdm", "0 8 linear own-exp 0")), "export own-expx");
        busy(mvc.perform(post("/api/v1/pools").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"name\":\"own-exppool\",\"device\":\"own-exp\",\"extentSize\":\"64KiB\"}")), "export own-expx");
        mvc.perform(writeData("own-exp", 0, BLOCK)).andExpect(status().isNoContent());
    }

    @Test
    void poolDevicesAndHiddenDevicesRefuseEvenRawWriters() throws Exception {
        smallPool(mvc, "own-p");
        busy(mvc.perform(writeData("own-p-pv", 0, BLOCK).param("raw", "true")), "pool own-p")
                .andExpect(jsonPath("$.detail", containsString("not allow raw access")));
        mvc.perform(createSnapshot("own-p", "own-p-v", "own-p-s", "128KiB")).andExpect(status().isCreated());
        for (String hidden : new String[] {"own-p-s-cow", "own-p-v-real"}) {
            for (boolean raw : new boolean[] {false, true}) {
                mvc.perform(writeData(hidden, 0, BLOCK).param("raw", Boolean.toString(raw)))
                        .andExpect(problem(409, "device-busy")).andExpect(jsonPath("$.detail", containsString("hidden")));
                mvc.perform(discard(hidden, raw)).andExpect(problem(409, "device-busy"));
            }
            mvc.perform(readData(hidden, 0, 512)).andExpect(problem(409, "device-busy"))
                    .andExpect(jsonPath("$.detail", containsString("hidden")));
            mvc.perform(export("own-hx", hidden, ",\"readOnly\":true")).andExpect(problem(409, "device-busy"));
            mvc.perform(export("own-hx", hidden, ",\"raw\":true")).andExpect(problem(409, "device-busy"));
            mvc.perform(createDm("own-hdm", "0 8 linear " + hidden + " 0")).andExpect(problem(409, "device-busy"));
        }
        // a snapshot table built over the store would rewrite its header: refused before it is built
        mvc.perform(createDm("own-hsnap", "0 512 snapshot own-p-v-real own-p-s-cow P 8"))
                .andExpect(problem(409, "device-busy"));
        mvc.perform(writeData("own-p-v", 0, BLOCK)).andExpect(status().isNoContent());
    }

    private static MockHttpServletRequestBuilder discard(String device, boolean raw) {
        return post("/api/v1/devices/{name}/discard", device).with(admin()).param("offset", "0")
                .param("length", "512").param("raw", Boolean.toString(raw));
    }

    private static MockHttpServletRequestBuilder export(String name, String device, String more) {
        return post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON)
                .content("{\"name\":\"" + name + "\",\"device\":\"" + device + "\"" + more + "}");
    }

    private static ResultActions busy(ResultActions result, String holder) throws Exception {
        return result.andExpect(problem(409, "device-busy")).andExpect(jsonPath("$.holders[0]").value(holder))
                .andExpect(jsonPath("$.detail", containsString(holder)));
    }
}
