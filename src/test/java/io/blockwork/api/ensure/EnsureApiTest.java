package io.blockwork.api.ensure;

import static io.blockwork.support.Requests.admin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.support.AppTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * Issue 30, finding 2: the scripting contract for every kind created by name. PUT to the item
 * path creates (201, Location); an identical repeat, by POST or PUT and in other spellings
 * ("64MiB" for 67108864, a default given explicitly), answers 200 with what GET shows; a
 * differing one is 409 name-taken whose differs names the field, and changes nothing; a PUT whose
 * body names another object is 400 at name.
 */
@AppTest
class EnsureApiTest {

    @Autowired
    MockMvc mvc;

    @Test
    void everyKindIsCreatedOrConfirmedAndNeverChangedByARepeat() throws Exception {
        String disks = "/api/v1/disks";
        contract(disks, "en-d1", "{\"name\":\"%s\",\"type\":\"memory\",\"size\":\"64MiB\"}",
                "{\"name\":\"%s\",\"type\":\"memory\",\"size\":67108864,\"logicalBlockSize\":512,\"queueDepth\":0}",
                "{\"name\":\"%s\",\"type\":\"memory\",\"size\":\"32MiB\"}", "size");
        for (String d : List.of("en-d2", "en-d3", "en-d4")) {
            created(put(disks + "/" + d), "{\"name\":\"" + d + "\",\"type\":\"memory\",\"size\":\"64MiB\"}");
        }
        contract("/api/v1/arrays", "en-md",
                "{\"name\":\"%s\",\"level\":\"raid1\",\"assumeClean\":true,\"members\":[\"en-d1\",\"en-d2\"]}",
                "{\"name\":\"%s\",\"level\":\"1\",\"assumeClean\":true,\"members\":[\"en-d1\",\"en-d2\"]}",
                "{\"name\":\"%s\",\"level\":\"raid1\",\"members\":[\"en-d1\",\"en-d3\"]}", "members");
        String pools = "/api/v1/pools";
        contract(pools, "en-vg", "{\"name\":\"%s\",\"device\":\"en-md\",\"extentSize\":\"4MiB\"}",
                "{\"name\":\"%s\",\"device\":\"en-md\",\"type\":\"classic\"}",
                "{\"name\":\"%s\",\"device\":\"en-md\",\"extentSize\":\"1MiB\"}", "extentSize");
        contract(pools + "/en-vg/volumes", "en-v1", "{\"name\":\"%s\",\"size\":\"8MiB\"}",
                "{\"name\":\"%s\",\"size\":\"6MiB\"}", "{\"name\":\"%s\",\"size\":\"16MiB\"}", "size");
        contract(pools + "/en-vg/volumes/en-v1/snapshots", "en-s1", "{\"name\":\"%s\",\"size\":\"4MiB\"}",
                "{\"name\":\"%s\",\"size\":4194304,\"chunkSize\":\"4KiB\",\"persistent\":true}",
                "{\"name\":\"%s\",\"size\":\"4MiB\",\"persistent\":false}", "persistent");
        contract(pools, "en-tp", "{\"name\":\"%s\",\"type\":\"thin\",\"from\":\"en-vg\",\"size\":\"16MiB\"}",
                "{\"name\":\"%s\",\"type\":\"thin\",\"from\":\"en-vg\",\"size\":16777216,\"chunkSize\":\"64KiB\"}",
                "{\"name\":\"%s\",\"type\":\"thin\",\"from\":\"en-vg\",\"size\":\"16MiB\",\"zero\":false}", "zero");
        contract(pools + "/en-tp/volumes", "en-tv", "{\"name\":\"%s\",\"size\":\"32MiB\"}",
                "{\"name\":\"%s\",\"size\":33554432}", "{\"name\":\"%s\",\"size\":\"64MiB\"}", "size");
        contract(pools + "/en-tp/volumes/en-tv/snapshots", "en-ts", "{\"name\":\"%s\"}",
                "{\"name\":\"%s\",\"source\":\"en-tv\"}", "{\"name\":\"%s\",\"source\":\"en-ts0\"}", "source");
        contract("/api/v1/exports", "en-x1", "{\"name\":\"%s\",\"device\":\"en-v1\"}",
                "{\"name\":\"%s\",\"device\":\"en-v1\",\"readOnly\":false,\"tls\":\"optional\"}",
                "{\"name\":\"%s\",\"device\":\"en-v1\",\"readOnly\":true}", "readOnly");
        contract("/api/v1/dm/devices", "en-dm", "{\"name\":\"%s\",\"table\":\"0 2048 linear en-d3 0\"}",
                "{\"name\":\"%s\",\"table\":\"# one target\\n0  2048  linear en-d3 0\\n\"}",
                "{\"name\":\"%s\",\"table\":\"0 1024 linear en-d3 0\"}", "table");
    }

    @Test
    void aNameOfAnotherKindIsStillTakenAndARepeatNeverCreatesTwice() throws Exception {
        created(put("/api/v1/disks/en-k1"), "{\"name\":\"en-k1\",\"type\":\"memory\",\"size\":\"8MiB\"}");
        MockHttpServletResponse dm = send(put("/api/v1/dm/devices/en-k1"), "{\"name\":\"en-k1\"}");
        assertThat(dm.getStatus()).as(dm.getContentAsString()).isEqualTo(409);
        assertThat((String) JsonPath.read(dm.getContentAsString(), "$.takenBy")).isEqualTo("disk");
        assertThat(mvc.perform(get("/api/v1/dm/devices/en-k1").with(admin())).andReturn().getResponse().getStatus())
                .isEqualTo(404);
    }

    /**
     * PUT creates {@code name} from {@code json} (a format taking the name); {@code same} is the
     * identical request spelt otherwise; {@code different} differs in {@code field} alone.
     */
    private void contract(String collection, String name, String json, String same, String different, String field)
            throws Exception {
        String item = collection + "/" + name;
        MockHttpServletResponse createdNow = created(put(item), json.formatted(name));
        assertThat(createdNow.getHeader("Location")).isEqualTo(item);
        String shown = show(item);
        for (String body : List.of(json.formatted(name), same.formatted(name))) {
            for (MockHttpServletRequestBuilder repeat : List.of(post(collection), put(item))) {
                MockHttpServletResponse r = send(repeat, body);
                assertThat(r.getStatus()).as("%s %s", item, r.getContentAsString()).isEqualTo(200);
                assertThat(r.getHeader("Location")).isEqualTo(item);
                assertThat(r.getContentAsString()).as(item).isEqualTo(show(item));
            }
        }
        for (MockHttpServletRequestBuilder differing : List.of(post(collection), put(item))) {
            MockHttpServletResponse r = send(differing, different.formatted(name));
            String problem = r.getContentAsString();
            assertThat(r.getStatus()).as("%s %s", item, problem).isEqualTo(409);
            assertThat((String) JsonPath.read(problem, "$.code")).isEqualTo("name-taken");
            assertThat((List<String>) JsonPath.read(problem, "$.differs")).as(problem).containsExactly(field);
            assertThat((String) JsonPath.read(problem, "$.detail")).contains(field + " is ");
            assertThat(show(item)).as("%s after a differing repeat", item).isEqualTo(shown);
        }
        MockHttpServletResponse other = send(put(item), json.formatted(name + "-other"));
        assertThat(other.getStatus()).as(other.getContentAsString()).isEqualTo(400);
        assertThat((String) JsonPath.read(other.getContentAsString(), "$.field")).isEqualTo("name");
        assertThat(mvc.perform(get(item + "-other").with(admin())).andReturn().getResponse().getStatus()).isEqualTo(404);
    }

    private MockHttpServletResponse created(MockHttpServletRequestBuilder request, String json) throws Exception {
        MockHttpServletResponse r = send(request, json);
        assertThat(r.getStatus()).as(r.getContentAsString()).isEqualTo(201);
        return r;
    }

    private MockHttpServletResponse send(MockHttpServletRequestBuilder request, String json) throws Exception {
        return mvc.perform(request.with(admin()).contentType(MediaType.APPLICATION_JSON).content(json)).andReturn()
                .getResponse();
    }

    private String show(String item) throws Exception {
        MockHttpServletResponse r = mvc.perform(get(item).with(admin())).andReturn().getResponse();
        assertThat(r.getStatus()).as(item).isEqualTo(200);
        return r.getContentAsString();
    }
}
