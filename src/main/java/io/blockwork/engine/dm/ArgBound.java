package io.blockwork.engine.dm;

/**
 * The bounds of a numeric target argument and the error given when it is outside them: the
 * kernel's {@code struct dm_arg}. Declared as constants beside a target's constructor.
 */
public record ArgBound(long min, long max, String error) {

    public static final long UINT_MAX = 0xFFFF_FFFFL;

    public ArgBound {
        if (min > max) {
            throw new IllegalArgumentException("min > max");
        }
    }

    public boolean contains(long value) {
        return value >= min && value <= max;
    }
}
