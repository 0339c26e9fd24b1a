package io.blockwork.pool.app;

import io.blockwork.engine.block.Counted;
import java.math.BigDecimal;
import java.math.RoundingMode;

/** Sizes for people: {@code 4 MiB}, {@code 1.25 GiB}; never more than there is (rounded down). */
public final class ByteUnits {

    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

    private ByteUnits() {}

    public static String human(long bytes) {
        int unit = 0;
        while (unit + 1 < UNITS.length && bytes >= 1L << (10 * (unit + 1))) {
            unit++;
        }
        BigDecimal value = BigDecimal.valueOf(bytes).divide(BigDecimal.valueOf(1L << (10 * unit)), 2, RoundingMode.DOWN)
                .stripTrailingZeros();
        return value.toPlainString() + " " + UNITS[unit];
    }

    /** {@code "300 extents of 4 MiB"}. */
    public static String extents(long count, long extentSize) {
        return Counted.of(count, "extent") + " of " + human(extentSize);
    }
}
