package io.blockwork.shared.openapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The API document springdoc serves must be the one checked in. With
 * {@code -Dblockwork.openapi.update=true} the test writes the served document instead.
 */
@AppTest
class OpenApiContractTest {

    @Autowired
    MockMvc mvc;

    @Test
    void servedDocumentIsTheCheckedInOne() throws Exception {
        String served = mvc.perform(get("/v3/api-docs")).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsString(StandardCharsets.UTF_8);
        Path file = Path.of(OpenApiDocument.FILE);
        if (Boolean.getBoolean("blockwork.openapi.update")) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, OpenApiDocument.normalize(served));
            return;
        }
        assertThat(file).as("%s is missing; create it with %s", file, OpenApiDocument.REGENERATE).exists();
        Optional<String> drift = OpenApiDocument.drift(Files.readString(file), served);
        assertThat(drift.isEmpty()).as(drift.orElse("")).isTrue();
    }
}
