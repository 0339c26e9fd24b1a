package io.blockwork.engine.block;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class QuotedTest {

    @Test
    void shortInputIsQuotedWhole() {
        assertThat(Quoted.of("md0")).isEqualTo("'md0'");
        assertThat(Quoted.of("x".repeat(Quoted.WHOLE))).isEqualTo("'" + "x".repeat(Quoted.WHOLE) + "'");
        assertThat(Quoted.of(null)).isEqualTo("null");
    }

    @Test
    void longInputShowsItsStartAndItsLength() {
        String digits = "7".repeat(3_000_000);
        assertThat(Quoted.of(digits)).isEqualTo("'" + "7".repeat(Quoted.SHOWN) + "…' (3000000 characters)");
    }
}
