package io.blockwork.nbd;

import java.io.IOException;

/** The client broke a MUST of the protocol; the server answers with a hard disconnect. */
final class ProtocolViolation extends IOException {
    ProtocolViolation(String message) {
        super(message);
    }
}
