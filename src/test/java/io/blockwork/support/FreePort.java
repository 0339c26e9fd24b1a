package io.blockwork.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** A loopback TCP port nobody listened on a moment ago: for a server a test starts, or one that must refuse. */
public final class FreePort {

    private FreePort() {}

    public static int loopback() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
