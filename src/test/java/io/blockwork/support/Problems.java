package io.blockwork.support;

import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.ResultMatcher;

/** Asserts a response is the problem+json body of one problem code. */
public final class Problems {

    private Problems() {}

    public static ResultMatcher problem(int status, String code) {
        ResultMatcher[] all = {
                status().is(status),
                content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON),
                jsonPath("$.code").value(code),
                jsonPath("$.type").value("/problems/" + code),
                jsonPath("$.status").value(status),
                jsonPath("$.title").isString(),
                jsonPath("$.detail").isString()};
        return result -> {
            for (ResultMatcher m : all) {
                m.match(result);
            }
        };
    }
}
