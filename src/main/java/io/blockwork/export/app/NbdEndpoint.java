package io.blockwork.export.app;

/**
 * Where the NBD server listens.
 *
 * @param address the configured listen address ({@code blockwork.nbd.address}: "127.0.0.1",
 *                "0.0.0.0", "::1", a host name)
 * @param port the bound port (the real one when configured as 0)
 * @param wildcard true when it listens on every interface, so {@code address} is not one a client can use
 */
public record NbdEndpoint(String address, int port, boolean wildcard) {

    /**
     * The URI clients use for an export, {@code nbd://host:port/name}, or {@code nbds://…} for an
     * export served over TLS only (libnbd's and nbdkit's scheme for NBD with STARTTLS). When the
     * server listens on every interface, the host is {@code requestHost}: the name the caller
     * reached the service by.
     */
    public String uri(String exportName, String requestHost, boolean tls) {
        String host = wildcard && requestHost != null ? requestHost : address;
        int scope = host.indexOf('%');
        if (scope >= 0 && !host.startsWith("[")) {
            host = host.substring(0, scope); // a link-local zone has no place in the URI's host
        }
        if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        return (tls ? "nbds://" : "nbd://") + host + ":" + port + "/" + exportName;
    }

    /**
     * The URI for the Unix-domain socket at {@code socket}, {@code nbd+unix:///name?socket=/path}, or
     * {@code nbds+unix://…} for an export served over TLS only.
     */
    public static String unixUri(String exportName, java.nio.file.Path socket, boolean tls) {
        return (tls ? "nbds+unix:///" : "nbd+unix:///") + exportName + "?socket=" + socket.toAbsolutePath();
    }
}
