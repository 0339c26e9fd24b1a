package io.blockwork.api.units;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("unit")
class UnitsTest {

    @ParameterizedTest
    @CsvSource({
            "4096, 4096", "512B, 512", "1K, 1024", "1KiB, 1024", "1.5KiB, 1536", "512MiB, 536870912",
            "512 MiB, 536870912", "10G, 10737418240", "10gib, 10737418240", "1TiB, 1099511627776", "1T, 1099511627776"})
    void sizesInBytesOrBinaryUnits(String text, long bytes) {
        assertThat(ByteSize.parse(text).bytes()).isEqualTo(bytes);
        assertThat(ByteSize.fromJson(text).bytes()).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.3KiB", "0.1B", "5PB", "1KB", "-1MiB", "MiB", "", "1e3", "99999999999TiB"})
    void sizesThatAreNotWholeBytesOrUnknownAreRefused(String text) {
        assertThatThrownBy(() -> ByteSize.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(doubles = {1.5, -2})
    void jsonNumbersMustBeWholeAndNonNegative(double value) {
        assertThatThrownBy(() -> ByteSize.fromJson(value)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({"80us, 80000, 80us", "1ms, 1000000, 1ms", "1.5ms, 1500000, 1500us", "2s, 2000000000, 2s",
            "250ns, 250, 250ns", "0ns, 0, 0ns", "20µs, 20000, 20us"})
    void durationsParseAndPrintInTheLargestWholeUnit(String text, long nanos, String shown) {
        TimeSpan t = TimeSpan.parse(text);
        assertThat(t.nanos()).isEqualTo(nanos);
        assertThat(t.toString()).isEqualTo(shown);
        assertThat(TimeSpan.parse(t.toString())).isEqualTo(t);
    }

    @ParameterizedTest
    @ValueSource(strings = {"80", "1.5ns", "3 minutes", "1h"})
    void durationsNeedAKnownUnitAndWholeNanoseconds(String text) {
        assertThatThrownBy(() -> TimeSpan.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }
}
