package io.blockwork.engine.dm;

/**
 * A target refused its arguments or a message: the kernel's {@code ti->error}. The table builder
 * adds the line number and the target's name.
 */
public final class TargetException extends Exception {

    public TargetException(String message) {
        super(message);
    }
}
