package io.blockwork.shared.units;

import io.blockwork.engine.block.Quoted;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses "&lt;number&gt;&lt;unit&gt;" quantities such as {@code 512MiB} or {@code 80us} into a whole
 * count of the base unit. The number may have a fraction as long as the result is whole
 * ({@code 1.5KiB} is 1536 bytes; {@code 1.3KiB} is refused).
 *
 * <p>Bounded: text longer than {@link #MAX_TEXT} characters is refused before the pattern or any
 * decimal arithmetic sees it (a long's 19 digits, a fraction and a unit fit in it with room to
 * spare), since {@code BigDecimal} of a megabyte of digits costs seconds of a core. JSON numbers
 * arrive already bounded: Jackson's {@code StreamReadConstraints} refuse a literal of more than
 * 1,000 digits, but an exponent can still make a huge {@code BigDecimal} or an infinite double,
 * so their magnitude is checked before they are made whole.
 */
final class UnitNumber {

    /** The longest quantity text parsed; anything longer is too large or not a quantity. */
    static final int MAX_TEXT = 64;

    private static final Pattern SHAPE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([A-Za-zµ]*)\\s*");

    private UnitNumber() {}

    /**
     * @param units multiplier of each unit, keyed in lower case; "" is the unit of a bare number
     * @param what what the quantity is, for messages ("size", "duration")
     */
    static long parse(String text, Map<String, Long> units, String what, String hint) {
        if (text.length() > MAX_TEXT) {
            throw new IllegalArgumentException(Quoted.of(text) + " is too long for a " + what
                    + " (at most " + MAX_TEXT + " characters)");
        }
        Matcher m = SHAPE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException(Quoted.of(text) + " is not a " + what + hint);
        }
        Long multiplier = units.get(m.group(2).toLowerCase(Locale.ROOT));
        if (multiplier == null && m.group(2).isEmpty()) {
            throw new IllegalArgumentException(Quoted.of(text) + " needs a unit" + hint);
        }
        if (multiplier == null) {
            throw new IllegalArgumentException(Quoted.of(m.group(2)) + " is not a unit of " + what + hint);
        }
        BigDecimal value = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(multiplier));
        BigDecimal whole = value.setScale(0, RoundingMode.DOWN);
        if (value.compareTo(whole) != 0) {
            throw new IllegalArgumentException(Quoted.of(text) + " is not a whole number of the smallest unit");
        }
        try {
            return whole.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(Quoted.of(text) + " is too large");
        }
    }

    /** A JSON number: a whole, non-negative count of the base unit. */
    static long fromNumber(Number n, String what) {
        if (n instanceof Double || n instanceof Float || n instanceof BigDecimal) {
            if ((n instanceof Double || n instanceof Float) && !Double.isFinite(n.doubleValue())) {
                throw new IllegalArgumentException("the number is too large for a " + what);
            }
            BigDecimal d = n instanceof BigDecimal b ? b : new BigDecimal(n.toString());
            if (d.stripTrailingZeros().scale() > 0) {
                throw new IllegalArgumentException(Quoted.of(n.toString()) + " is not a whole number; give the " + what
                        + " as a string with a unit");
            }
            // 1e999999999 as a BigDecimal is small, its BigInteger a billion digits: look at the magnitude first.
            if (d.signum() != 0 && d.precision() - d.scale() > 19) {
                throw new IllegalArgumentException(Quoted.of(n.toString()) + " is too large");
            }
            n = d.toBigInteger();
        }
        long v;
        try {
            v = n instanceof BigInteger b ? b.longValueExact() : n.longValue();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(Quoted.of(n.toString()) + " is too large");
        }
        if (v < 0) {
            throw new IllegalArgumentException("a " + what + " must not be negative");
        }
        return v;
    }

    /** Reads a JSON value (number or string) as a whole count of the base unit. */
    static long fromJson(Object value, Map<String, Long> units, String what, String hint) {
        return switch (value) {
            case Number n -> fromNumber(n, what);
            case String s -> parse(s, units, what, hint);
            case null -> throw new IllegalArgumentException("a " + what + " is required");
            default -> throw new IllegalArgumentException("a " + what + " is a number or a string" + hint);
        };
    }
}
