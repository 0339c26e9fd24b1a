package io.blockwork.engine.md;

/**
 * A well-formed request the array refuses in its current state: removing an in-sync member that
 * was not failed, starting a check while a recovery runs, failing the last copy of some data.
 * {@link #field()} names the input field the refusal is about; nothing was changed.
 */
public final class MdStateException extends IllegalStateException {
    private final String field;

    public MdStateException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
