package io.blockwork.engine.dm.targets.logwrites;

/**
 * A write log could not be read or replayed: no log on the device, a damaged entry, a replay
 * target too small or failing. The message is ready to show.
 */
public final class WriteLogException extends RuntimeException {

    public WriteLogException(String message) {
        super(message);
    }

    public WriteLogException(String message, Throwable cause) {
        super(message, cause);
    }
}
