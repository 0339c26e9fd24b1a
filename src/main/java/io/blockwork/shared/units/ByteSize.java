package io.blockwork.shared.units;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.Map;

/**
 * A size in a request: a JSON integer of bytes, or a string with a binary unit ({@code "512MiB"},
 * {@code "10G"}). K, M, G and T mean KiB, MiB, GiB and TiB: block devices count in powers of two.
 */
public record ByteSize(long bytes) {

    static final String HINT = ": use bytes or a binary unit, e.g. 4096, \"512MiB\", \"10GiB\" (B, KiB, MiB, GiB, TiB; K M G T mean the same)";

    private static final Map<String, Long> UNITS = Map.ofEntries(
            Map.entry("", 1L), Map.entry("b", 1L),
            Map.entry("k", 1L << 10), Map.entry("kib", 1L << 10),
            Map.entry("m", 1L << 20), Map.entry("mib", 1L << 20),
            Map.entry("g", 1L << 30), Map.entry("gib", 1L << 30),
            Map.entry("t", 1L << 40), Map.entry("tib", 1L << 40));

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static ByteSize fromJson(Object value) {
        return new ByteSize(UnitNumber.fromJson(value, UNITS, "size", HINT));
    }

    public static ByteSize parse(String text) {
        return new ByteSize(UnitNumber.parse(text, UNITS, "size", HINT));
    }
}
