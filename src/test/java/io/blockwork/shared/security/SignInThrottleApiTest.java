package io.blockwork.shared.security;

import static io.blockwork.support.Problems.problem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.httpBasic;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import io.blockwork.support.TempDataDir;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.RequestPostProcessor;

/**
 * Failed sign-ins are throttled per client: five wrong passwords within a minute from one address,
 * and that address gets 429 with Retry-After, even with the right password; another address signs
 * in as usual. Each test uses addresses of its own (the context is shared).
 */
@AppTest
class SignInThrottleApiTest {

    @Autowired
    MockMvc mvc;

    private static RequestPostProcessor from(String address) {
        return request -> {
            request.setRemoteAddr(address);
            return request;
        };
    }

    @Test
    void fiveWrongPasswordsHoldThatClientBackAndNoOther() throws Exception {
        for (int i = 0; i < SignInThrottle.MAX_FAILURES; i++) {
            mvc.perform(get("/api/v1/system").with(httpBasic("admin", "guess-" + i)).with(from("192.0.2.10")))
                    .andExpect(problem(401, "unauthenticated"));
        }
        String retryAfter = mvc.perform(get("/api/v1/system").with(httpBasic("admin", TempDataDir.ADMIN_PASSWORD))
                        .with(from("192.0.2.10")))
                .andExpect(problem(429, "too-many-sign-ins"))
                .andExpect(header().exists("Retry-After"))
                .andReturn().getResponse().getHeader("Retry-After");
        assertThat(Integer.parseInt(retryAfter)).isBetween(1, 60);
        // another client, the right password: signed in as usual
        mvc.perform(get("/api/v1/system").with(httpBasic("admin", TempDataDir.ADMIN_PASSWORD)).with(from("192.0.2.11")))
                .andExpect(status().isOk());
        // requests without credentials are not sign-in attempts: still the usual 401
        mvc.perform(get("/api/v1/system").with(from("192.0.2.10"))).andExpect(problem(401, "unauthenticated"));
    }

    @Test
    void rightPasswordsAndRequestsWithoutCredentialsAreNotCounted() throws Exception {
        for (int i = 0; i < 3 * SignInThrottle.MAX_FAILURES; i++) {
            mvc.perform(get("/api/v1/system").with(from("192.0.2.20"))).andExpect(problem(401, "unauthenticated"));
            mvc.perform(get("/api/v1/system").with(httpBasic("viewer", TempDataDir.VIEWER_PASSWORD)).with(from("192.0.2.20")))
                    .andExpect(status().isOk());
        }
        for (int i = 0; i < SignInThrottle.MAX_FAILURES - 1; i++) {
            mvc.perform(get("/api/v1/system").with(httpBasic("admin", "nope-" + i)).with(from("192.0.2.20")))
                    .andExpect(problem(401, "unauthenticated"));
        }
        mvc.perform(get("/api/v1/system").with(httpBasic("admin", TempDataDir.ADMIN_PASSWORD)).with(from("192.0.2.20")))
                .andExpect(status().isOk());
    }
}
