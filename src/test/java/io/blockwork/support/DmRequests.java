package io.blockwork.support;

import static io.blockwork.support.Requests.admin;

import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;

/** Short-hands for the device-mapper API's requests. */
public final class DmRequests {

    public static final String DEVICES = "/api/v1/dm/devices";

    private DmRequests() {}

    /** POST /api/v1/dm/devices as admin with a JSON body. */
    public static MockHttpServletRequestBuilder createDm(String json) {
        return MockMvcRequestBuilders.post(DEVICES).with(admin()).contentType(MediaType.APPLICATION_JSON).content(json);
    }

    /** A device with a table given as text. */
    public static MockHttpServletRequestBuilder createDm(String name, String table) {
        return createDm("{\"name\":\"" + name + "\",\"table\":" + jsonString(table) + "}");
    }

    /** PUT …/{name}/table with a text/plain body. */
    public static MockHttpServletRequestBuilder loadText(String name, String table) {
        return MockMvcRequestBuilders.put(DEVICES + "/{name}/table", name).with(admin())
                .contentType(MediaType.TEXT_PLAIN).content(table);
    }

    public static MockHttpServletRequestBuilder loadJson(String name, String json) {
        return MockMvcRequestBuilders.put(DEVICES + "/{name}/table", name).with(admin())
                .contentType(MediaType.APPLICATION_JSON).content(json);
    }

    public static MockHttpServletRequestBuilder dmPost(String name, String action) {
        return MockMvcRequestBuilders.post(DEVICES + "/{name}/" + action, name).with(admin());
    }

    public static MockHttpServletRequestBuilder dmPost(String name, String action, String json) {
        return dmPost(name, action).contentType(MediaType.APPLICATION_JSON).content(json);
    }

    public static MockHttpServletRequestBuilder dmGet(String name) {
        return MockMvcRequestBuilders.get(DEVICES + "/{name}", name).with(admin());
    }

    /** GET …/{name}/table or …/status (text/plain). */
    public static MockHttpServletRequestBuilder dmText(String name, String what) {
        return MockMvcRequestBuilders.get(DEVICES + "/{name}/" + what, name).with(admin());
    }

    public static MockHttpServletRequestBuilder dmDelete(String name) {
        return MockMvcRequestBuilders.delete(DEVICES + "/{name}", name).with(admin());
    }

    public static String jsonString(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n").replace("\t", "\\t") + "\"";
    }
}
