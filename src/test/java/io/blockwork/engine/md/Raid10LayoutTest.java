package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** mdadm's layout names and md's numeric encoding. */
@Tag("unit")
class Raid10LayoutTest {

    @ParameterizedTest
    @CsvSource({"n2, 0x102, 2, 1, false", "f2, 0x201, 1, 2, false", "o2, 0x10201, 1, 2, true",
            "n3, 0x103, 3, 1, false", "f3, 0x301, 1, 3, false", "o3, 0x10301, 1, 3, true"})
    void shortNamesEncodeAsMdDoes(String name, String hex, int near, int far, boolean offset) {
        Raid10Layout l = Raid10Layout.parse(name);
        assertThat(l).isEqualTo(new Raid10Layout(near, far, offset));
        assertThat(l.code()).isEqualTo(Integer.decode(hex));
        assertThat(Raid10Layout.parse(hex)).isEqualTo(l);
        assertThat(Raid10Layout.parse(Integer.toString(l.code()))).isEqualTo(l);
        assertThat(l.label()).isEqualTo(name);
    }

    @Test
    void combinedLayoutsHaveOnlyANumberAndMdadmsDescription() {
        Raid10Layout l = Raid10Layout.parse("0x202");
        assertThat(l).isEqualTo(new Raid10Layout(2, 2, false));
        assertThat(l.label()).isEqualTo("0x202");
        assertThat(l.describe()).isEqualTo("near=2, far=2");
        assertThat(Raid10Layout.parse("o2").describe()).isEqualTo("offset=2");
    }

    @Test
    void defaultIsNearTwo() {
        assertThat(Raid10Layout.parse(null)).isEqualTo(Raid10Layout.N2);
        assertThat(Raid10Layout.parse(" ")).isEqualTo(Raid10Layout.N2);
    }

    @ParameterizedTest
    @CsvSource({"x2", "n", "n1", "0x101", "0x20102", "0x40102", "n256", "banana", "-1", "o1"})
    void badLayoutsNameTheField(String text) {
        assertThatThrownBy(() -> Raid10Layout.parse(text)).isInstanceOf(MdArgumentException.class)
                .satisfies(e -> assertThat(((MdArgumentException) e).field()).isEqualTo("layout"))
                .hasMessageStartingWith("layout: ");
    }

    @Test
    void controlCharactersAreABadLayoutNotAnEmptyOne() {
        // the REST fuzzer's find: a lone NUL is not blank, but trim() made it empty
        for (String text : new String[] {"\0", " \1 ", "\0n2"}) {
            assertThatThrownBy(() -> Raid10Layout.parse(text)).isInstanceOf(MdArgumentException.class)
                    .hasMessageStartingWith("layout: ");
        }
    }

    @Test
    void farSetBitsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> Raid10Layout.fromCode(0x40201)).hasMessageContaining("far-set bits");
    }
}
