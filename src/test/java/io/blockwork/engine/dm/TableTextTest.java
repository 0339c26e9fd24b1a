package io.blockwork.engine.dm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Table text syntax: fields, comments, blank lines, line numbers, the list form. */
@Tag("unit")
class TableTextTest {

    @Test
    void commentsAndBlankLinesAreSkippedButCountTowardsLineNumbers() {
        TableSpec spec = TableSpec.parse("""
                # a joined device
                0 2048 linear d0 0

                \t# second half
                2048\t1024   linear  d1 8
                """);
        assertThat(spec.lines()).extracting(TableSpec.Line::line).containsExactly(2, 5);
        assertThat(spec.lines().get(1)).isEqualTo(new TableSpec.Line(5, 2048, 1024, "linear", List.of("d1", "8")));
        assertThat(spec.text()).isEqualTo("0 2048 linear d0 0\n2048 1024 linear d1 8\n");
    }

    @Test
    void aCommentMayFollowATargetOnItsLine() {
        TableSpec spec = TableSpec.parse("0 8 zero # comment\n8 8 linear d0 0\t#note\n16 8 error #\n");
        assertThat(spec.lines()).extracting(TableSpec.Line::text)
                .containsExactly("0 8 zero", "8 8 linear d0 0", "16 8 error");
        assertThatThrownBy(() -> TableSpec.parse("0 8 # zero\n")).isInstanceOfSatisfying(TableException.class,
                e -> assertThat(e.line()).isEqualTo(1));
    }

    @Test
    void crLfLineEndsAreAccepted() {
        assertThat(TableSpec.parse("0 8 zero\r\n8 8 error\r\n").lines()).hasSize(2);
    }

    @Test
    void aLineWithoutTargetTypeNamesItsLine() {
        assertThatThrownBy(() -> TableSpec.parse("0 8 zero\n\n8 16\n"))
                .isInstanceOf(TableException.class)
                .hasMessageStartingWith("line 3: expected '<start> <length> <target> [<args>...]'")
                .extracting(e -> ((TableException) e).line()).isEqualTo(3);
    }

    @Test
    void nonNumericSectorsNameTheirLineAndField() {
        assertThatThrownBy(() -> TableSpec.parse("# c\n0 1k zero\n"))
                .hasMessageStartingWith("line 2: invalid length '1k'");
        assertThatThrownBy(() -> TableSpec.parse("-8 8 zero\n"))
                .hasMessageStartingWith("line 1: invalid start '-8'");
        assertThatThrownBy(() -> TableSpec.parse("0 99999999999999999999 zero\n"))
                .hasMessageStartingWith("line 1: invalid length");
    }

    @Test
    void theListFormSplitsArgumentStringsAndNumbersByPosition() {
        TableSpec spec = TableSpec.of(List.of(
                new TableSpec.TargetObject(0, 8, "linear", List.of("d0 16")),
                new TableSpec.TargetObject(8, 8, "striped", List.of("2", "8", "d0", "0", "d1", "0"))));
        assertThat(spec.text()).isEqualTo("0 8 linear d0 16\n8 8 striped 2 8 d0 0 d1 0\n");
        assertThat(spec.lines()).extracting(TableSpec.Line::line).containsExactly(1, 2);
        assertThatThrownBy(() -> TableSpec.of(List.of(new TableSpec.TargetObject(0, 8, "zero", null),
                new TableSpec.TargetObject(8, 8, " ", List.of()))))
                .hasMessage("line 2: missing target type");
    }
}
