package io.blockwork.engine.block;

/**
 * A count with its noun, the one place the service's messages make a plural ("1 entry",
 * "3 entries", "1 extent"); the dashboard's {@code counted} in format.js is its twin for the
 * browser. Lives in engine.block so every layer's messages can use it.
 */
public final class Counted {

    private Counted() {}

    /** {@code "1 volume"}, {@code "2 volumes"}: the noun with an s unless the count is one. */
    public static String of(long count, String one) {
        return of(count, one, one + "s");
    }

    /** {@code "1 entry"}, {@code "2 entries"}: for nouns whose plural is not one's + s. */
    public static String of(long count, String one, String many) {
        return count + " " + (count == 1 ? one : many);
    }
}
