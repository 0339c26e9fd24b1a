package io.blockwork.support;

import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.httpBasic;

import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.request.RequestPostProcessor;

/** Short-hands for the requests the API tests make. */
public final class Requests {

    private Requests() {}

    public static RequestPostProcessor admin() {
        return httpBasic("admin", TempDataDir.ADMIN_PASSWORD);
    }

    public static RequestPostProcessor viewer() {
        return httpBasic("viewer", TempDataDir.VIEWER_PASSWORD);
    }

    /** POST /api/v1/disks as admin with a JSON body. */
    public static MockHttpServletRequestBuilder createDisk(String json) {
        return MockMvcRequestBuilders.post("/api/v1/disks").with(admin())
                .contentType(MediaType.APPLICATION_JSON).content(json);
    }

    public static MockHttpServletRequestBuilder memoryDisk(String name, String size) {
        return createDisk("{\"name\":\"" + name + "\",\"type\":\"memory\",\"size\":\"" + size + "\"}");
    }

    public static MockHttpServletRequestBuilder writeData(String device, long offset, byte[] data) {
        return MockMvcRequestBuilders.put("/api/v1/devices/{name}/data", device).with(admin())
                .param("offset", Long.toString(offset))
                .contentType(MediaType.APPLICATION_OCTET_STREAM).content(data);
    }

    public static MockHttpServletRequestBuilder readData(String device, long offset, long length) {
        return MockMvcRequestBuilders.get("/api/v1/devices/{name}/data", device).with(admin())
                .param("offset", Long.toString(offset)).param("length", Long.toString(length));
    }
}
