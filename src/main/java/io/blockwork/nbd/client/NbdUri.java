package io.blockwork.nbd.client;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Where an NBD export is, as the NBD URI specification writes it (the NetworkBlockDevice
 * project's {@code doc/uri.md}, as libnbd and qemu read it): {@code nbd://host[:port]/name} over
 * TCP (port 10809 by default) or {@code nbd+unix:///name?socket=/path} over a Unix socket. The
 * export name is the path without its first slash, percent-decoded; empty names the default
 * export. TLS schemes ({@code nbds://}) are refused: this client does not do STARTTLS.
 *
 * @param socketPath the Unix socket, or null for TCP
 */
public record NbdUri(String text, String host, int port, Path socketPath, String exportName) {

    public static final int DEFAULT_PORT = 10809;

    public static NbdUri parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("an NBD URI is required: nbd://host:port/name or nbd+unix:///name?socket=path");
        }
        URI u;
        try {
            u = new URI(text.strip());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URI: " + e.getMessage());
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme();
        String name = exportName(u);
        return switch (scheme) {
            case "nbd" -> {
                if (u.getHost() == null || u.getHost().isEmpty()) {
                    throw new IllegalArgumentException("nbd:// needs a host: nbd://host:port/name");
                }
                if (u.getRawQuery() != null) {
                    throw new IllegalArgumentException("nbd:// takes no query (" + u.getRawQuery() + ")");
                }
                int port = u.getPort() == -1 ? DEFAULT_PORT : u.getPort();
                String host = u.getHost().startsWith("[") ? u.getHost().substring(1, u.getHost().length() - 1) : u.getHost();
                yield new NbdUri(text.strip(), host, port, null, name);
            }
            case "nbd+unix" -> {
                if (u.getRawAuthority() != null) {
                    throw new IllegalArgumentException("nbd+unix:// has no host: nbd+unix:///name?socket=path");
                }
                String socket = socketParameter(u.getRawQuery());
                yield new NbdUri(text.strip(), null, -1, Path.of(socket), name);
            }
            case "nbds", "nbds+unix", "nbd+vsock", "nbds+vsock" -> throw new IllegalArgumentException(
                    scheme + ":// is not supported: use nbd:// (TCP) or nbd+unix:// on a private network or loopback");
            default -> throw new IllegalArgumentException("unknown scheme '" + scheme
                    + "': use nbd://host:port/name or nbd+unix:///name?socket=path");
        };
    }

    private static String exportName(URI u) {
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        String name = path.startsWith("/") ? path.substring(1) : path;
        name = URLDecoder.decode(name.replace("+", "%2B"), StandardCharsets.UTF_8);
        if (name.getBytes(StandardCharsets.UTF_8).length > 4096 || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("the export name must be at most 4096 bytes without NUL");
        }
        return name;
    }

    private static String socketParameter(String rawQuery) {
        if (rawQuery != null) {
            for (String pair : rawQuery.split("&")) {
                if (pair.startsWith("socket=") && pair.length() > "socket=".length()) {
                    return URLDecoder.decode(pair.substring("socket=".length()).replace("+", "%2B"), StandardCharsets.UTF_8);
                }
            }
        }
        throw new IllegalArgumentException("nbd+unix:// needs the socket: nbd+unix:///name?socket=/path/to/socket");
    }

    public SocketAddress address() {
        return socketPath != null ? UnixDomainSocketAddress.of(socketPath) : new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
        return text;
    }
}
