package io.blockwork.array.web;

import static io.blockwork.support.Requests.admin;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;

import com.jayway.jsonpath.JsonPath;
import java.util.List;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/** Requests and looks of the arrays tests. */
final class ArrayRequests {

    private ArrayRequests() {}

    static MockHttpServletRequestBuilder createArray(String json) {
        return post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON).content(json);
    }

    static MockHttpServletRequestBuilder addMember(String array, String json) {
        return post("/api/v1/arrays/{name}/members", array).with(admin())
                .contentType(MediaType.APPLICATION_JSON).content(json);
    }

    static MockHttpServletRequestBuilder failMember(String array, String member) {
        return post("/api/v1/arrays/{name}/members/{member}/fail", array, member).with(admin());
    }

    static MockHttpServletRequestBuilder removeMember(String array, String member) {
        return delete("/api/v1/arrays/{name}/members/{member}", array, member).with(admin());
    }

    static MockHttpServletRequestBuilder reAdd(String array, String member) {
        return post("/api/v1/arrays/{name}/members/{member}/re-add", array, member).with(admin());
    }

    static MockHttpServletRequestBuilder sync(String array, String action) {
        return post("/api/v1/arrays/{name}/sync", array).with(admin())
                .contentType(MediaType.APPLICATION_JSON).content("{\"action\":\"" + action + "\"}");
    }

    static MockHttpServletRequestBuilder speedLimits(String array, String json) {
        return put("/api/v1/arrays/{name}/speed-limits", array).with(admin())
                .contentType(MediaType.APPLICATION_JSON).content(json);
    }

    /** GET /api/v1/arrays/{name} as admin, parsed. */
    static Object array(MockMvc mvc, String name) throws Exception {
        String body = mvc.perform(get("/api/v1/arrays/{name}", name).with(admin())).andReturn().getResponse()
                .getContentAsString();
        return JsonPath.parse(body).json();
    }

    static <T> T at(Object json, String path) {
        return JsonPath.read(json, path);
    }

    /** The sync daemon is idle and nothing is left to resync or rebuild. */
    static boolean settled(MockMvc mvc, String name) throws Exception {
        Object a = array(mvc, name);
        return at(a, "$.sync.action").equals("idle") && !(Boolean) at(a, "$.resyncPending")
                && ((List<?>) at(a, "$.members[?(@.state == 'rebuilding')]")).isEmpty();
    }

    /** The stored member rows of {@code array}: device to "state slot". */
    static Map<String, String> rows(JdbcTemplate jdbc, String array) {
        Map<String, String> out = new java.util.TreeMap<>();
        jdbc.query("SELECT m.device_name, m.state, m.slot FROM array_members m JOIN arrays a ON a.id = m.array_id"
                + " WHERE a.name = ?", rs -> {
                    out.put(rs.getString(1), rs.getString(2) + " " + rs.getObject(3));
                }, array);
        return out;
    }
}
