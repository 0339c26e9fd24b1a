package io.blockwork.engine.dm;

/**
 * A device-mapper management operation was refused: the message says why, in words a caller can
 * show as they are ("no inactive table to resume into", "device 'vol0' is removed").
 */
public class DmException extends RuntimeException {

    public DmException(String message) {
        super(message);
    }

    public DmException(String message, Throwable cause) {
        super(message, cause);
    }
}
