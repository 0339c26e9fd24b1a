package io.blockwork.shared.units;

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

    /** Issue 30: a long number was handed to BigDecimal whole (seconds of a core) and echoed whole. */
    @ParameterizedTest
    @ValueSource(strings = {"size", "duration"})
    void aLongNumberIsRefusedBeforeAnyArithmeticWithAShortMessage(String kind) {
        String digits = "9".repeat(300_000) + (kind.equals("size") ? "MiB" : "ms");
        assertThatThrownBy(() -> {
            if (kind.equals("size")) {
                ByteSize.parse(digits);
            } else {
                TimeSpan.parse(digits);
            }
        }).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is too long for a " + kind)
                .hasMessageContaining("(" + digits.length() + " characters)")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(120));
    }

    @ParameterizedTest
    @CsvSource({"1e999999999", "1E+400", "-1e999999999"})
    void jsonNumbersWithHugeExponentsAreTooLargeNotARawJavaMessage(String literal) {
        Number asDouble = Double.parseDouble(literal);
        Number asDecimal = new java.math.BigDecimal(literal);
        for (Number n : new Number[] {asDouble, asDecimal}) {
            assertThatThrownBy(() -> ByteSize.fromJson(n)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("too large")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("Character").hasSizeLessThan(120));
        }
    }

    @ParameterizedTest
    @CsvSource({"1234567890123456789012345678901234567890123B", "1.000000000000000000000000000000000000000000001KiB"})
    void echoedInputIsShortened(String text) {
        assertThatThrownBy(() -> ByteSize.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).startsWith("'" + text.substring(0, 32) + "…' ("));
    }
}
