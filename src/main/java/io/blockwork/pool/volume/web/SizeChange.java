package io.blockwork.pool.volume.web;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.blockwork.shared.units.ByteSize;

/**
 * A volume's new size in a request: absolute (bytes, or {@code "20GiB"}) or relative to the
 * current size ({@code "+5GiB"}, {@code "-1GiB"}).
 *
 * @param bytes the new size, or the signed change when {@code relative}
 */
record SizeChange(long bytes, boolean relative) {

    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static SizeChange fromJson(Object value) {
        if (value instanceof String s) {
            String t = s.strip();
            if (t.startsWith("+") || t.startsWith("-")) {
                long magnitude = ByteSize.parse(t.substring(1)).bytes();
                return new SizeChange(t.startsWith("-") ? -magnitude : magnitude, true);
            }
        }
        return new SizeChange(ByteSize.fromJson(value).bytes(), false);
    }
}
