package io.blockwork.shared.security;

import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.viewer;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

@AppTest
class SecurityTest {

    @Autowired
    MockMvc mvc;

    @Test
    void healthProblemsApiDocsAndDashboardAreOpen() throws Exception {
        mvc.perform(get("/actuator/health")).andExpect(status().isOk()).andExpect(jsonPath("$.status").value("UP"));
        mvc.perform(get("/problems/not-found")).andExpect(status().isOk());
        mvc.perform(get("/v3/api-docs")).andExpect(status().isOk());
        mvc.perform(get("/index.html")).andExpect(status().isOk());
        mvc.perform(get("/js/main.js")).andExpect(status().isOk());
    }

    @Test
    void viewerReadsConfigurationAndStatistics() throws Exception {
        mvc.perform(get("/api/v1/devices").with(viewer())).andExpect(status().isOk());
        mvc.perform(get("/api/v1/disks").with(viewer())).andExpect(status().isOk());
        mvc.perform(get("/api/v1/system").with(viewer())).andExpect(status().isOk());
    }

    @Test
    void otherActuatorEndpointsNeedTheAdmin() throws Exception {
        mvc.perform(get("/actuator")).andExpect(problem(401, "unauthenticated"));
        mvc.perform(get("/actuator").with(viewer())).andExpect(problem(403, "forbidden"));
        mvc.perform(get("/actuator").with(admin())).andExpect(status().isOk());
    }

    /** The dashboard's fetch calls must not make the browser show its own Basic pop-up. */
    @Test
    void noChallengeForTheDashboardsRequests() throws Exception {
        mvc.perform(get("/api/v1/devices").header("X-Requested-With", "blockwork-dashboard"))
                .andExpect(problem(401, "unauthenticated"))
                .andExpect(header().doesNotExist("WWW-Authenticate"));
    }
}
