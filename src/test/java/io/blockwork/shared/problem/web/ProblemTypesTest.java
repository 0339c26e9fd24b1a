package io.blockwork.shared.problem.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.shared.problem.Problem;
import io.blockwork.support.AppTest;
import io.blockwork.support.Problems;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

@AppTest
class ProblemTypesTest {

    @Autowired
    MockMvc mvc;

    @Test
    void codesAreUniqueShortAndLowerCase() {
        assertThat(Arrays.stream(Problem.values()).map(Problem::code)).doesNotHaveDuplicates()
                .allMatch(c -> c.matches("[a-z][a-z-]{1,30}"));
    }

    @Test
    void everyTypeUriResolvesWithoutSigningIn() throws Exception {
        for (Problem p : Problem.values()) {
            mvc.perform(get(p.type()))
                    .andExpect(status().isOk())
                    .andExpect(jsonPath("$.code").value(p.code()))
                    .andExpect(jsonPath("$.status").value(p.status()))
                    .andExpect(jsonPath("$.description").isString());
        }
        mvc.perform(get("/problems/no-such-problem")).andExpect(Problems.problem(404, "not-found"));
    }
}
