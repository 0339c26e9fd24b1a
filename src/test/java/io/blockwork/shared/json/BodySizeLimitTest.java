package io.blockwork.shared.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.http.HttpServletRequest;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** A body without a Content-Length (chunked) is counted as it is read; device data is not counted. */
@Tag("unit")
class BodySizeLimitTest {

    /** A request whose length is undeclared, as a chunked body's is. */
    private static MockHttpServletRequest chunked(String method, String path, int bytes) {
        MockHttpServletRequest request = new MockHttpServletRequest(method, path) {
            @Override
            public long getContentLengthLong() {
                return -1;
            }
        };
        request.setContent(new byte[bytes]);
        return request;
    }

    /** The request as the filter hands it on. */
    private static HttpServletRequest filtered(MockHttpServletRequest request) throws Exception {
        AtomicReference<HttpServletRequest> seen = new AtomicReference<>();
        new BodySizeLimit().doFilter(request, new MockHttpServletResponse(),
                (req, res) -> seen.set((HttpServletRequest) req));
        return seen.get();
    }

    @Test
    void aChunkedBodyUpToTheLimitIsReadWhole() throws Exception {
        InputStream in = filtered(chunked("POST", "/api/v1/disks", (int) BodySizeLimit.LIMIT_BYTES)).getInputStream();
        assertThat(in.readAllBytes()).hasSize((int) BodySizeLimit.LIMIT_BYTES);
    }

    @Test
    void aChunkedBodyOneBytePastTheLimitFailsWithoutBeingHeld() throws Exception {
        InputStream in = filtered(chunked("POST", "/api/v1/disks", (int) BodySizeLimit.LIMIT_BYTES + 4096))
                .getInputStream();
        byte[] buffer = new byte[1 << 20];
        long read = 0;
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                read += n;
            }
        } catch (BodySizeLimit.TooLarge expected) {
            assertThat(read).isLessThanOrEqualTo(BodySizeLimit.LIMIT_BYTES);
            assertThatThrownBy(in::read).isInstanceOf(BodySizeLimit.TooLarge.class);
            return;
        }
        throw new AssertionError("read " + read + " bytes without failing");
    }

    @Test
    void aDeclaredLengthOverTheLimitFailsTheFirstRead() throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/api/v1/disks");
        request.setContent(new byte[(int) BodySizeLimit.LIMIT_BYTES + 1]);
        assertThatThrownBy(() -> filtered(request).getReader().read())
                .isInstanceOf(BodySizeLimit.TooLarge.class).hasMessageContaining("4194305 bytes");
    }

    @Test
    void deviceDataAndPathsOutsideTheApiAreNotCounted() throws Exception {
        int bytes = (int) BodySizeLimit.LIMIT_BYTES + 1;
        MockHttpServletRequest data = chunked("PUT", "/api/v1/devices/d/data", bytes);
        data.setContentType("application/octet-stream");
        assertThat(filtered(data).getInputStream().readAllBytes()).hasSize(bytes);
        assertThat(filtered(chunked("POST", "/login", bytes)).getInputStream().readAllBytes()).hasSize(bytes);
    }
}
