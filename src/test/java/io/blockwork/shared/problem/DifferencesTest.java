package io.blockwork.shared.problem;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The comparison behind create-or-confirm: what was not asked for is not compared, sizes compare as rounded. */
@Tag("unit")
class DifferencesTest {

    private static final long MIB = 1 << 20;

    @Test
    void aSizeNotAskedForIsNotCompared() {
        assertThat(Differences.of("volume", "v").size("size", null, 8 * MIB, 4 * MIB).fields()).isEmpty();
    }

    @Test
    void aSizeComparesAsTheCreateRoundsIt() {
        assertThat(Differences.of("volume", "v").size("size", 6 * MIB, 8 * MIB, 4 * MIB).fields()).isEmpty();
        assertThat(Differences.of("volume", "v").size("size", 9 * MIB, 8 * MIB, 4 * MIB).fields()).containsExactly("size");
        assertThat(Differences.of("volume", "v").size("size", 9 * MIB, 8 * MIB, 0).fields()).containsExactly("size");
    }
}
