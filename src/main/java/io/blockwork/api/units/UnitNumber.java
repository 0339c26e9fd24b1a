package io.blockwork.api.units;

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
 */
final class UnitNumber {

    private static final Pattern SHAPE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([A-Za-zµ]*)\\s*");

    private UnitNumber() {}

    /**
     * @param units multiplier of each unit, keyed in lower case; "" is the unit of a bare number
     * @param what what the quantity is, for messages ("size", "duration")
     */
    static long parse(String text, Map<String, Long> units, String what, String hint) {
        Matcher m = SHAPE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a " + what + hint);
        }
        Long multiplier = units.get(m.group(2).toLowerCase(Locale.ROOT));
        if (multiplier == null && m.group(2).isEmpty()) {
            throw new IllegalArgumentException("'" + text + "' needs a unit" + hint);
        }
        if (multiplier == null) {
            throw new IllegalArgumentException("'" + m.group(2) + "' is not a unit of " + what + hint);
        }
        BigDecimal value = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(multiplier));
        BigDecimal whole = value.setScale(0, RoundingMode.DOWN);
        if (value.compareTo(whole) != 0) {
            throw new IllegalArgumentException("'" + text + "' is not a whole number of the smallest unit");
        }
        try {
            return whole.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
    }

    /** A JSON number: a whole, non-negative count of the base unit. */
    static long fromNumber(Number n, String what) {
        if (n instanceof Double || n instanceof Float || n instanceof BigDecimal) {
            BigDecimal d = new BigDecimal(n.toString());
            if (d.stripTrailingZeros().scale() > 0) {
                throw new IllegalArgumentException(n + " is not a whole number; give the " + what + " as a string with a unit");
            }
            n = d.toBigInteger();
        }
        long v;
        try {
            v = n instanceof BigInteger b ? b.longValueExact() : n.longValue();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(n + " is too large");
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
