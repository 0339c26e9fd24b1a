package io.blockwork.shared.problem.web;

import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import com.jayway.jsonpath.JsonPath;
import io.blockwork.support.AppTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * Issue 30: a path under /api/ that nothing serves is a problem+json 404 naming the path, for
 * every method (not Spring's "No static resource …", nor a 405 from the static files), while a
 * path that exists keeps its 405 for a method it does not take, and the dashboard's files and
 * its icon are still served.
 */
@AppTest
class UnknownPathTest {

    @Autowired
    MockMvc mvc;

    private String detail(MockHttpServletRequestBuilder request, int status, String code) throws Exception {
        return JsonPath.read(mvc.perform(request.with(admin())).andExpect(problem(status, code))
                .andReturn().getResponse().getContentAsString(), "$.detail");
    }

    @Test
    void anUnknownApiPathIsANotFoundProblemNamingThePath() throws Exception {
        assertThat(detail(get("/api/v1/no-such-thing"), 404, "not-found")).isEqualTo("no such path: /api/v1/no-such-thing");
        for (MockHttpServletRequestBuilder r : List.of(post("/api/v1/no-such-thing").contentType(MediaType.APPLICATION_JSON)
                .content("{}"), put("/api/v1/disks/d/nothing-here"), delete("/api/v1/no-such-thing"), get("/api/v2/disks"),
                get("/api/"))) {
            assertThat(detail(r, 404, "not-found")).startsWith("no such path: /api/");
        }
    }

    @Test
    void aLongUnknownPathIsShortenedInTheDetail() throws Exception {
        String path = "/api/v1/" + "x".repeat(5000);
        assertThat(detail(get(path), 404, "not-found")).startsWith("no such path: /api/v1/xxx")
                .endsWith("… (5008 characters)").hasSizeLessThan(200);
    }

    @Test
    void aKnownPathKeepsItsMethodNotAllowed() throws Exception {
        detail(delete("/api/v1/disks"), 405, "method-not-allowed");
    }

    @Test
    void theDashboardAndItsIconAreStillServed() throws Exception {
        mvc.perform(get("/index.html")).andExpect(status().isOk())
                .andExpect(content().string(containsString("<link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">")));
        mvc.perform(get("/js/main.js")).andExpect(status().isOk());
        byte[] svg = mvc.perform(get("/favicon.svg")).andExpect(status().isOk())
                .andExpect(content().contentTypeCompatibleWith("image/svg+xml"))
                .andExpect(content().string(startsWith("<svg"))).andReturn().getResponse().getContentAsByteArray();
        mvc.perform(get("/favicon.ico")).andExpect(status().isOk())
                .andExpect(content().contentTypeCompatibleWith("image/svg+xml")).andExpect(content().bytes(svg));
        // a file the dashboard does not have is still a 404 problem, outside /api/ too
        detail(get("/no-such-file.js"), 404, "not-found");
    }
}
