package io.blockwork.support;

import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;

/** Short-hands for the pools and volumes API's requests. */
public final class PoolRequests {

    public static final String POOLS = "/api/v1/pools";

    private PoolRequests() {}

    /**
     * The small pool the bad-input tests start from: {@code p}-pv (a 1 MiB memory disk), pool
     * {@code p} of 16 extents of 64 KiB on it, and volume {@code p}-v of 256 KiB (4 extents).
     */
    public static void smallPool(MockMvc mvc, String p) throws Exception {
        mvc.perform(memoryDisk(p + "-pv", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createPool(p, p + "-pv", "64KiB")).andExpect(status().isCreated());
        mvc.perform(createVolume(p, p + "-v", "256KiB")).andExpect(status().isCreated());
    }

    /** POST /api/v1/pools as admin with a JSON body. */
    public static MockHttpServletRequestBuilder createPool(String json) {
        return MockMvcRequestBuilders.post(POOLS).with(admin()).contentType(MediaType.APPLICATION_JSON).content(json);
    }

    public static MockHttpServletRequestBuilder createPool(String name, String device, String extentSize) {
        return createPool("{\"name\":\"" + name + "\",\"device\":\"" + device + "\""
                + (extentSize == null ? "" : ",\"extentSize\":\"" + extentSize + "\"") + "}");
    }

    public static MockHttpServletRequestBuilder getPool(String pool) {
        return MockMvcRequestBuilders.get(POOLS + "/{pool}", pool).with(admin());
    }

    public static MockHttpServletRequestBuilder deletePool(String pool) {
        return MockMvcRequestBuilders.delete(POOLS + "/{pool}", pool).with(admin());
    }

    /** POST /api/v1/pools/{pool}/volumes with a JSON body. */
    public static MockHttpServletRequestBuilder createVolume(String pool, String json) {
        return MockMvcRequestBuilders.post(POOLS + "/{pool}/volumes", pool).with(admin())
                .contentType(MediaType.APPLICATION_JSON).content(json);
    }

    /** A volume of {@code size}: a JSON string such as "10MiB", or a number of bytes. */
    public static MockHttpServletRequestBuilder createVolume(String pool, String name, Object size) {
        String s = size instanceof String ? "\"" + size + "\"" : String.valueOf(size);
        return createVolume(pool, "{\"name\":\"" + name + "\",\"size\":" + s + "}");
    }

    public static MockHttpServletRequestBuilder getVolume(String pool, String name) {
        return MockMvcRequestBuilders.get(POOLS + "/{pool}/volumes/{name}", pool, name).with(admin());
    }

    /** PATCH …/volumes/{name} with a JSON body. */
    public static MockHttpServletRequestBuilder patchVolume(String pool, String name, String json) {
        return MockMvcRequestBuilders.patch(POOLS + "/{pool}/volumes/{name}", pool, name).with(admin())
                .contentType(MediaType.APPLICATION_JSON).content(json);
    }

    public static MockHttpServletRequestBuilder resize(String pool, String name, String size, boolean allowShrink) {
        return patchVolume(pool, name, "{\"size\":\"" + size + "\"" + (allowShrink ? ",\"allowShrink\":true" : "") + "}");
    }

    public static MockHttpServletRequestBuilder deleteVolume(String pool, String name) {
        return MockMvcRequestBuilders.delete(POOLS + "/{pool}/volumes/{name}", pool, name).with(admin());
    }

    public static MockHttpServletRequestBuilder listVolumes() {
        return MockMvcRequestBuilders.get("/api/v1/volumes").with(admin());
    }

    /** POST …/volumes/{volume}/snapshots with a JSON body. */
    public static MockHttpServletRequestBuilder createSnapshot(String pool, String volume, String json) {
        return MockMvcRequestBuilders.post(POOLS + "/{pool}/volumes/{volume}/snapshots", pool, volume).with(admin())
                .contentType(MediaType.APPLICATION_JSON).content(json);
    }

    public static MockHttpServletRequestBuilder createSnapshot(String pool, String volume, String name, String size) {
        return createSnapshot(pool, volume, "{\"name\":\"" + name + "\",\"size\":\"" + size + "\"}");
    }

    public static MockHttpServletRequestBuilder listSnapshots(String pool, String volume) {
        return MockMvcRequestBuilders.get(POOLS + "/{pool}/volumes/{volume}/snapshots", pool, volume).with(admin());
    }

    public static MockHttpServletRequestBuilder getSnapshot(String pool, String volume, String name) {
        return MockMvcRequestBuilders.get(POOLS + "/{pool}/volumes/{volume}/snapshots/{name}", pool, volume, name)
                .with(admin());
    }

    public static MockHttpServletRequestBuilder mergeSnapshot(String pool, String volume, String name) {
        return MockMvcRequestBuilders.post(POOLS + "/{pool}/volumes/{volume}/snapshots/{name}/merge", pool, volume,
                name).with(admin());
    }

    public static MockHttpServletRequestBuilder deleteSnapshot(String pool, String volume, String name) {
        return MockMvcRequestBuilders.delete(POOLS + "/{pool}/volumes/{volume}/snapshots/{name}", pool, volume, name)
                .with(admin());
    }
}
