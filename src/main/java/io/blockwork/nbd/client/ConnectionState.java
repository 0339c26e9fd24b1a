package io.blockwork.nbd.client;

/** Where a remote device's connection to its server stands. */
public enum ConnectionState {
    /** Connecting or reconnecting; I/O fails meanwhile. */
    CONNECTING,
    /** Every connection is up; I/O goes to the server. */
    CONNECTED,
    /** The connection broke or a request timed out; the client reconnects in the background. */
    DISCONNECTED,
    /** The device was closed. */
    CLOSED;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
