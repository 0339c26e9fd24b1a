package io.blockwork.shared.ensure;

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
     * A name in the path is the client's to spell: one a URI must escape (a space, a brace, a
     * letter outside ASCII) is answered for what it is, the pool or volume not found or the name
     * refused, not 500 on the Location built from it (what the REST fuzzer found).
     */
    @Test
    void aPathNameThatMustBeEscapedIsAnsweredNotBroken() throws Exception {
        created(put("/api/v1/disks/en-e1"), "{\"name\":\"en-e1\",\"type\":\"memory\",\"size\":\"64MiB\"}");
        created(put("/api/v1/pools/en-evg"), "{\"name\":\"en-evg\",\"device\":\"en-e1\"}");
        created(put("/api/v1/pools/en-evg/volumes/en-ev"), "{\"name\":\"en-ev\",\"size\":\"8MiB\"}");
        for (String odd : List.of("a b", "{x}", "é")) {
            String volume = "{\"name\":\"en-ev2\",\"size\":\"8MiB\"}";
            assertThat(refused(post("/api/v1/pools/{p}/volumes", odd), volume)).isEqualTo(404);
            assertThat(refused(put("/api/v1/pools/{p}/volumes/{v}", odd, "en-ev2"), volume)).isEqualTo(404);
            assertThat(refused(post("/api/v1/pools/en-evg/volumes/{v}/snapshots", odd),
                    "{\"name\":\"en-es\",\"size\":\"4MiB\"}")).isEqualTo(404);
            String named = "{\"name\":\"" + odd + "\",\"size\":\"8MiB\"";
            assertThat(refusedAt(put("/api/v1/disks/{d}", odd), named + ",\"type\":\"memory\"}")).isEqualTo("name");
            assertThat(refusedAt(put("/api/v1/pools/en-evg/volumes/{v}", odd), named + "}")).isEqualTo("name");
        }
        assertThat(show("/api/v1/pools/en-evg/volumes")).doesNotContain("en-ev2");
    }

    /**
     * A repeat is checked as a create is: one that leaves the size out is refused at "size" for a
     * volume and a COW snapshot alike, whether or not the object is there, and changes nothing
     * (the REST fuzzer's PUT of a snapshot with a name alone was a 500).
     */
    @Test
    void aRepeatWithoutTheSizeIsRefusedAsACreateIs() throws Exception {
        created(put("/api/v1/disks/en-r1"), "{\"name\":\"en-r1\",\"type\":\"memory\",\"size\":\"64MiB\"}");
        created(put("/api/v1/pools/en-rvg"), "{\"name\":\"en-rvg\",\"device\":\"en-r1\"}");
        created(put("/api/v1/pools/en-rvg/volumes/en-rv"), "{\"name\":\"en-rv\",\"size\":\"8MiB\"}");
        created(put("/api/v1/pools/en-rvg/volumes/en-rv/snapshots/en-rs"), "{\"name\":\"en-rs\",\"size\":\"4MiB\"}");
        for (String item : List.of("/api/v1/pools/en-rvg/volumes/en-rv", "/api/v1/pools/en-rvg/volumes/en-rv/snapshots/en-rs",
                "/api/v1/pools/en-rvg/volumes/en-rv/snapshots/en-rs2")) {
            String name = item.substring(item.lastIndexOf('/') + 1);
            String collection = item.substring(0, item.lastIndexOf('/'));
            String listed = show(collection);
            for (MockHttpServletRequestBuilder repeat : List.of(put(item), post(collection))) {
                assertThat(refusedAt(repeat, "{\"name\":\"" + name + "\"}")).as(item).isEqualTo("size");
            }
            assertThat(show(collection)).isEqualTo(listed);
        }
    }

    /** The field a 400 refusal names. */
    private String refusedAt(MockHttpServletRequestBuilder request, String json) throws Exception {
        MockHttpServletResponse r = send(request, json);
        assertThat(r.getStatus()).as(r.getContentAsString()).isEqualTo(400);
        return JsonPath.read(r.getContentAsString(), "$.field");
    }

    /** The status of a refusal, which must be a problem+json body. */
    private int refused(MockHttpServletRequestBuilder request, String json) throws Exception {
        MockHttpServletResponse r = send(request, json);
        assertThat(r.getContentType()).as(r.getContentAsString()).startsWith("application/problem+json");
        return r.getStatus();
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
