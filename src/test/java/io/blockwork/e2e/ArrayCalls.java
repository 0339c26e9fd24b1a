package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.nbd.Json;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** What the end-to-end array tests ask a running service, over HTTP. */
final class ArrayCalls {

    private ArrayCalls() {}

    /** POSTs {@code json} to {@code path} and requires 200 or 201. */
    static void created(ServiceClient api, String path, String json) throws Exception {
        var response = api.postJson(path, json);
        assertThat(response.statusCode()).as("%s %s: %s", path, json, response.body()).isIn(200, 201);
    }

    static Map<String, Object> array(ServiceClient api, String name) throws Exception {
        return Json.parseObject(api.get("/api/v1/arrays/" + name).body());
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> members(Map<String, Object> array) {
        return (List<Map<String, Object>>) array.get("members");
    }

    static Map<String, Object> member(Map<String, Object> array, String device) {
        return members(array).stream().filter(m -> device.equals(m.get("device"))).findFirst().orElseThrow();
    }

    /** Idle, resynced, nothing rebuilding. */
    static boolean settled(ServiceClient api, String name) throws Exception {
        Map<String, Object> a = array(api, name);
        return "idle".equals(Json.at(a, "sync", "action")) && Boolean.FALSE.equals(a.get("resyncPending"))
                && members(a).stream().noneMatch(m -> "rebuilding".equals(m.get("state")));
    }

    static byte[] read(ServiceClient api, String device, long offset, int length) throws Exception {
        var r = api.getBytes("/api/v1/devices/" + device + "/data?offset=" + offset + "&length=" + length);
        assertThat(r.statusCode()).as("read %s at %d", device, offset).isEqualTo(200);
        return r.body();
    }

    static void write(ServiceClient api, String device, long offset, byte[] data) throws Exception {
        assertThat(api.put("/api/v1/devices/" + device + "/data?offset=" + offset, data).statusCode()).isEqualTo(204);
    }

    static byte[] random(int seed, int bytes) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return b;
    }
}
