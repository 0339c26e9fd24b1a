package io.blockwork.export.web;

import static io.blockwork.support.Requests.admin;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/** Requests of the exports tests. */
public final class ExportRequests {

    private ExportRequests() {}

    /** POST /api/v1/exports as admin with a JSON body. */
    public static MockHttpServletRequestBuilder createExport(String json) {
        return post("/api/v1/exports").with(admin()).contentType(MediaType.APPLICATION_JSON).content(json);
    }
}
