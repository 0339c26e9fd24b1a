package io.blockwork.engine.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class LabelledTest {

    enum Sample implements Labelled {
        PER_DEVICE,
        OFF
    }

    @Test
    void theLabelIsTheNameInLowerCaseWithDashes() {
        assertThat(Sample.PER_DEVICE.label()).isEqualTo("per-device");
        assertThat(Sample.OFF.label()).isEqualTo("off");
    }

    @Test
    void findTakesExactlyTheLabel() {
        assertThat(Labelled.find(Sample.class, "per-device")).contains(Sample.PER_DEVICE);
        assertThat(Labelled.find(Sample.class, "PER_DEVICE")).isEmpty();
        assertThat(Labelled.find(Sample.class, null)).isEmpty();
    }

    @Test
    void anUnknownLabelIsRefusedNamingWhatIsTaken() {
        assertThatThrownBy(() -> Labelled.parse(Sample.class, "per-disk", "empty-flush strategy"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown empty-flush strategy 'per-disk' (per-device, off)");
    }
}
