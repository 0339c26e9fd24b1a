package io.blockwork.shared.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The must-fail twin of {@link OpenApiContractTest}: the comparison it relies on does catch drift. */
@Tag("unit")
class OpenApiDriftDetectionTest {

    private final String checkedIn = read();

    private static String read() {
        try {
            return Files.readString(Path.of(OpenApiDocument.FILE));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aChangedSummaryIsReportedWithWhereAndHowToRegenerate() {
        assertThat(checkedIn).contains("\"Create a disk\"");
        String drifted = checkedIn.replace("\"Create a disk\"", "\"Make a disk\"");
        assertThat(OpenApiDocument.drift(checkedIn, drifted)).hasValueSatisfying(message -> assertThat(message)
                .contains("Create a disk", "Make a disk", "line ", OpenApiDocument.REGENERATE));
    }

    @Test
    void aRemovedPathIsReported() {
        String drifted = checkedIn.replace("\"/api/v1/disks/{name}/power-cut\"", "\"/api/v1/disks/{name}/unplug\"");
        assertThat(OpenApiDocument.drift(checkedIn, drifted)).isPresent();
    }

    @Test
    void keyOrderAndFormattingAreNotDrift() {
        String compact = checkedIn.replaceAll("\\n\\s*", "");
        assertThat(OpenApiDocument.drift(checkedIn, compact)).isEmpty();
        assertThat(OpenApiDocument.drift(checkedIn, checkedIn)).isEmpty();
    }
}
