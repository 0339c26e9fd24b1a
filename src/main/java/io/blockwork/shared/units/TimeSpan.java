package io.blockwork.shared.units;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Map;

/**
 * A duration: a string with a unit ({@code "80us"}, {@code "1ms"}; ns, us, ms, s) or a JSON integer
 * of nanoseconds. Shown in the largest unit that keeps it whole.
 */
public record TimeSpan(long nanos) {

    private static final String HINT = ": use a number with ns, us, ms or s, e.g. \"80us\"";

    private static final Map<String, Long> UNITS = Map.of(
            "ns", 1L, "us", 1_000L, "µs", 1_000L, "ms", 1_000_000L, "s", 1_000_000_000L);

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static TimeSpan fromJson(Object value) {
        return new TimeSpan(UnitNumber.fromJson(value, UNITS, "duration", HINT));
    }

    public static TimeSpan parse(String text) {
        return new TimeSpan(UnitNumber.parse(text, UNITS, "duration", HINT));
    }

    @JsonValue
    @Override
    public String toString() {
        if (nanos != 0) {
            if (nanos % 1_000_000_000L == 0) {
                return nanos / 1_000_000_000L + "s";
            }
            if (nanos % 1_000_000L == 0) {
                return nanos / 1_000_000L + "ms";
            }
            if (nanos % 1_000L == 0) {
                return nanos / 1_000L + "us";
            }
        }
        return nanos + "ns";
    }
}
