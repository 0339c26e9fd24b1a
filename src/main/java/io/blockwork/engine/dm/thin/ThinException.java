package io.blockwork.engine.dm.thin;

/** A refused thin-pool operation or unreadable metadata; the message is ready to show. */
public class ThinException extends Exception {

    public ThinException(String message) {
        super(message);
    }
}
