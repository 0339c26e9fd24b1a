package io.blockwork.shared.json;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Caps what the API reads of a request body (JSON, a dm table's text) at {@link #LIMIT_BYTES}.
 * The largest real body, a dm table of tens of thousands of lines, stays far below it; without a
 * cap one signed-in client's few huge bodies took the process from 0.5 to 1.8 GB while Jackson
 * built them. A body over the cap fails as its first byte past the cap is read (at once when its
 * Content-Length says so), which the problem advice answers 413 payload-too-large with
 * {@code limitBytes}; nothing has been changed by then. Device data
 * (octet-stream, {@code PUT /api/v1/devices/{name}/data}) has its own limit and memory budget and is
 * not counted.
 * Registered after the security filters, so an unauthenticated body is never read at all.
 */
@Component
public final class BodySizeLimit extends OncePerRequestFilter {

    public static final long LIMIT_BYTES = 4L << 20;

    /** What the body's stream throws once the body is known to be larger than the limit. */
    public static final class TooLarge extends IOException {
        TooLarge(long declared) {
            super(declared > LIMIT_BYTES
                    ? "the request body is " + declared + " bytes; a request body is at most " + LIMIT_BYTES + " bytes (4 MiB)"
                    : "a request body is at most " + LIMIT_BYTES + " bytes (4 MiB)");
        }
    }

    /**
     * Octet-stream bodies are device data, which only the data endpoint reads (anywhere else the
     * content type is refused, 415, before the body is read) and which its transfer budget bounds.
     */
    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String type = request.getContentType();
        String octets = MediaType.APPLICATION_OCTET_STREAM_VALUE;
        return !request.getRequestURI().startsWith("/api/")
                || (type != null && type.regionMatches(true, 0, octets, 0, octets.length()));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        chain.doFilter(new Limited(request), response);
    }

    /** The request, its body read through one counting stream (and at most one reader over it). */
    private static final class Limited extends HttpServletRequestWrapper {
        private ServletInputStream body;
        private BufferedReader reader;

        Limited(HttpServletRequest request) {
            super(request);
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (body == null) {
                body = new CountingStream(super.getInputStream(), getContentLengthLong());
            }
            return body;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            if (reader == null) {
                String encoding = getCharacterEncoding();
                Charset charset;
                try {
                    charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
                } catch (IllegalArgumentException unknown) { // what the container's own reader reports
                    throw new UnsupportedEncodingException(encoding);
                }
                reader = new BufferedReader(new InputStreamReader(getInputStream(), charset));
            }
            return reader;
        }
    }

    /** Passes the body through until it is known to be over the limit, then fails every read. */
    private static final class CountingStream extends ServletInputStream {
        private final ServletInputStream in;
        private final long declared;
        private long read;

        CountingStream(ServletInputStream in, long declared) {
            this.in = in;
            this.declared = declared;
        }

        private void check() throws TooLarge {
            if (declared > LIMIT_BYTES || read > LIMIT_BYTES) {
                throw new TooLarge(declared);
            }
        }

        @Override
        public int read() throws IOException {
            check();
            int b = in.read();
            if (b >= 0) {
                read++;
                check();
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            check();
            // never more than one byte past the limit, so an over-long body is refused without being held
            int n = in.read(buffer, offset, (int) Math.min(length, LIMIT_BYTES + 1 - read));
            if (n > 0) {
                read += n;
                check();
            }
            return n;
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
