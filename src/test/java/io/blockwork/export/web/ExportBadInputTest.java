package io.blockwork.export.web;

import static io.blockwork.export.web.ExportRequests.createExport;
import static io.blockwork.support.Listings.named;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.memoryDisk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.support.AppTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Each kind of bad export request gets its status, problem code and field, and changes nothing:
 * exports, devices and their holders are compared as the API shows them.
 */
@AppTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExportBadInputTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    DeviceRegistry registry;

    private String before;

    @BeforeAll
    void anExportedDiskAndADeviceThatIsNotActive() throws Exception {
        mvc.perform(memoryDisk("eb-disk", "1MiB")).andExpect(status().isCreated());
        mvc.perform(createExport("{\"name\":\"eb-taken\",\"device\":\"eb-disk\"}")).andExpect(status().isCreated());
        registry.reserve("eb-down", DeviceKind.DISK, ObjectState.failed("its image file is missing"));
    }

    @AfterAll
    void dropTheReservation() {
        registry.unregister("eb-down");
    }

    @BeforeEach
    void rememberState() throws Exception {
        before = everything();
    }

    private String everything() throws Exception {
        return named(mvc, "/api/v1/exports", "eb-") + named(mvc, "/api/v1/devices", "eb-");
    }

    private void assertNothingChanged() throws Exception {
        assertThat(everything()).isEqualTo(before);
    }

    @Test
    void unknownDevice() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-nobody\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("device"))
                .andExpect(jsonPath("$.detail").value(containsString("eb-nobody")));
        assertNothingChanged();
    }

    @Test
    void allowedClientsThatAreNotAddressBlocks() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-disk\","
                        + "\"allowedClients\":[\"10.0.0.0/8\",\"nbd.example.org\"]}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("allowedClients[1]"))
                .andExpect(jsonPath("$.detail").value(containsString("host names are not accepted")));
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-disk\",\"allowedClients\":[\"10.1.2.3/16\"]}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("allowedClients[0]"))
                .andExpect(jsonPath("$.detail").value(containsString("10.1.0.0/16")));
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-disk\",\"allowedClients\":[null]}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("allowedClients[0]"));
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-disk\",\"allowedClients\":[]}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("allowedClients"))
                .andExpect(jsonPath("$.detail").value(containsString("leave it out")));
        String many = "\"10.0.0.1\",".repeat(65);
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-disk\",\"allowedClients\":["
                        + many.substring(0, many.length() - 1) + "]}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.detail").value(containsString("at most 64")));
        assertNothingChanged();
    }

    @Test
    void unknownTlsMode() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-disk\",\"tls\":\"maybe\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.errors[0].field").value("tls"));
        assertNothingChanged();
    }

    @Test
    void missingDevice() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-new\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.errors[0].field").value("device"));
        assertNothingChanged();
    }

    @Test
    void deviceThatIsNotActive() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-down\"}"))
                .andExpect(problem(409, "conflict"))
                .andExpect(jsonPath("$.field").value("device"))
                .andExpect(jsonPath("$.detail").value(containsString("image file is missing")));
        assertNothingChanged();
    }

    @Test
    void duplicateName() throws Exception {
        // an identical repeat confirms (the scripting contract); one with other settings is refused, naming them
        mvc.perform(createExport("{\"name\":\"eb-taken\",\"device\":\"eb-disk\"}")).andExpect(status().isOk());
        mvc.perform(createExport("{\"name\":\"eb-taken\",\"device\":\"eb-disk\",\"readOnly\":true}"))
                .andExpect(problem(409, "name-taken"))
                .andExpect(jsonPath("$.field").value("name"))
                .andExpect(jsonPath("$.takenBy").value("export"))
                .andExpect(jsonPath("$.differs[0]").value("readOnly"));
        assertNothingChanged();
    }

    @Test
    void badName() throws Exception {
        mvc.perform(createExport("{\"name\":\"Bad Name\",\"device\":\"eb-disk\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.errors[0].field").value("name"));
        assertNothingChanged();
    }

    @Test
    void defaultNameOfADeviceThatIsAlreadyExportedUnderIt() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-disk\",\"device\":\"eb-disk\"}")).andExpect(status().isCreated());
        before = everything();
        mvc.perform(createExport("{\"device\":\"eb-disk\"}")).andExpect(status().isOk());
        mvc.perform(createExport("{\"device\":\"eb-disk\",\"readOnly\":true}"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.field").value("name"));
        assertNothingChanged();
        mvc.perform(delete("/api/v1/exports/eb-disk").with(admin())).andExpect(status().isNoContent());
    }

    @Test
    void descriptionTooLong() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-disk\",\"description\":\""
                        + "é".repeat(2049) + "\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("description"));
        assertNothingChanged();
    }

    @Test
    void descriptionWithNul() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-disk\",\"description\":\"a\\u0000b\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("description"));
        assertNothingChanged();
    }

    @Test
    void readOnlyThatIsNotABoolean() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-disk\",\"readOnly\":\"maybe\"}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("readOnly"));
        assertNothingChanged();
    }

    @Test
    void unknownMember() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-new\",\"device\":\"eb-disk\",\"port\":10810}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("port"));
        assertNothingChanged();
    }

    @Test
    void malformedJson() throws Exception {
        mvc.perform(createExport("{\"name\":\"eb-new\",")).andExpect(problem(400, "malformed-json"));
        assertNothingChanged();
    }

    @Test
    void unknownExport() throws Exception {
        mvc.perform(get("/api/v1/exports/eb-nobody").with(admin())).andExpect(problem(404, "not-found"));
        mvc.perform(delete("/api/v1/exports/eb-nobody").with(admin())).andExpect(problem(404, "not-found"));
        assertNothingChanged();
    }
}
