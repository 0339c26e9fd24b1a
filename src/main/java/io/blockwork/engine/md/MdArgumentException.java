package io.blockwork.engine.md;

/**
 * A request to create or change an array was malformed: a bad level, chunk, layout, member list or
 * strategy. {@link #field()} names the input field at fault (e.g. {@code "chunk"},
 * {@code "members[2]"}) so the API can point at it; nothing was changed.
 */
public final class MdArgumentException extends IllegalArgumentException {
    private final String field;

    public MdArgumentException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
