package io.blockwork.system.web;

import io.swagger.v3.oas.annotations.Hidden;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /favicon.ico}, which browsers, bookmarks and crawlers ask for whatever the page links:
 * the dashboard's SVG icon ({@code /favicon.svg}, linked from index.html), the same bytes, so
 * there is one icon to keep and no 404 in every browser's console.
 */
@Hidden
@RestController
class FaviconController {

    private final byte[] icon;

    FaviconController() {
        try (InputStream in = FaviconController.class.getResourceAsStream("/static/favicon.svg")) {
            if (in == null) {
                throw new IllegalStateException("the dashboard's static/favicon.svg is not on the classpath");
            }
            icon = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @GetMapping("/favicon.ico")
    ResponseEntity<byte[]> favicon() {
        return ResponseEntity.ok().contentType(MediaType.valueOf("image/svg+xml"))
                .cacheControl(CacheControl.noCache()).body(icon);
    }
}
