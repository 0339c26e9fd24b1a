package io.blockwork.engine.block;

/**
 * Input quoted back in a message, at most a line long: a request may carry megabytes in one
 * field, and an error that echoes it whole would send it back (and into the log) again.
 */
public final class Quoted {

    /** Inputs up to this many characters are quoted whole. */
    static final int WHOLE = 40;
    /** How much of a longer input is shown before the ellipsis. */
    static final int SHOWN = 32;

    private Quoted() {}

    /** {@code 'text'}, or {@code '1234…' (3000000 characters)} when it is longer than {@value #WHOLE}. */
    public static String of(String text) {
        if (text == null) {
            return "null";
        }
        if (text.length() <= WHOLE) {
            return "'" + text + "'";
        }
        return "'" + text.substring(0, SHOWN) + "…' (" + text.length() + " characters)";
    }
}
