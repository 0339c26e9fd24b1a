package io.blockwork.engine.dm;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The example tables of the kernel's Documentation/admin-guide/device-mapper pages (linear,
 * striped, delay, dm-flakey), with device paths replaced by names: each builds, prints back in
 * canonical form, and shows the status the kernel would.
 */
@Tag("unit")
class KernelDocExamplesTest {

    private final DmTestDevices devs = new DmTestDevices();

    @BeforeEach
    void devices() {
        devs.add(Disk.nullDisk("sdb", 8_000_000L * 512, DiskConfig.DEFAULT));
        devs.add(Disk.nullDisk("sdc", 8_000_000L * 512, DiskConfig.DEFAULT));
    }

    private Table build(String text) {
        return Table.build(TableSpec.parse(text), devs, devs.config(), null);
    }

    /** Tables whose canonical form is the text as written. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            # linear.rst: an identity mapping
            0 8000000 linear sdb 0
            # linear.rst: join two devices
            0 8000000 linear sdb 0\\n8000000 8000000 linear sdc 0
            # striped.rst: two devices, 128 KiB chunks
            0 15999488 striped 2 256 sdb 0 sdc 0
            # delay.rst: reads, writes and flushes delayed 500 ms
            0 8000000 delay sdb 0 500
            # delay.rst: writes and flushes delayed 400 ms on another device, at other offsets
            0 7995904 delay sdb 2048 0 sdc 4096 400
            # delay.rst: reads 50 ms, writes 100 ms, flushes 333 ms
            0 8000000 delay sdb 0 50 sdc 0 100 sdb 0 333
            # dm-flakey.rst: replace the 32nd byte of READ bios with 1
            0 8000000 flakey sdb 0 5 5 5 corrupt_bio_byte 32 r 1 0
            # dm-flakey.rst: replace the 224th byte of REQ_META (=32) writes with 0
            0 8000000 flakey sdb 0 5 5 5 corrupt_bio_byte 224 w 0 32
            0 8000000 flakey sdb 0 5 5 1 drop_writes
            0 8000000 flakey sdb 0 5 5 2 error_reads error_writes
            0 8000000 flakey sdb 0 5 5 3 error_writes random_read_corrupt 1000
            """)
    void printsBackAsWritten(String text) {
        String table = text.replace("\\n", "\n") + "\n";
        Table t = build(table);
        assertThat(t.text()).isEqualTo(table);
        assertThat(t.spec()).isEqualTo(TableSpec.parse(table).renumbered());
        t.close();
    }

    @Test
    void linearReverseExtentsFromLinearRst() {
        // linear.rst's perl script: 4 MiB extents of one device, joined in reverse order.
        long extent = 4 * 1024 * 2;
        long extents = 8_000_000L / extent - (8_000_000L % extent != 0 ? 1 : 0);
        StringBuilder table = new StringBuilder();
        for (long count = 0, left = extents; left > 0; count++) {
            left--;
            table.append(count * extent).append(' ').append(extent).append(" linear sdb ").append(left * extent).append('\n');
        }
        Table t = build(table.toString());
        assertThat(t.entries()).hasSize((int) extents);
        assertThat(t.text()).isEqualTo(table.toString());
        assertThat(t.devices()).extracting(d -> d.name()).containsExactly("sdb");
        assertThat(t.limits().boundaryBytes()).as("equal extents: the core splits at extent edges").isEqualTo(extent * 512);
    }

    @Test
    void flakeyFeaturesComeBackInCanonicalForm() {
        assertThat(build("0 8 flakey sdb 0 1 1\n").text())
                .as("no features means all I/O fails while down")
                .isEqualTo("0 8 flakey sdb 0 1 1 2 error_reads error_writes\n");
        assertThat(build("0 8 flakey sdb 0 1 1 0\n").text()).isEqualTo("0 8 flakey sdb 0 1 1 2 error_reads error_writes\n");
        assertThat(build("0 8 flakey sdb 0 1 1 2 DROP_WRITES error_reads\n").text())
                .isEqualTo("0 8 flakey sdb 0 1 1 2 error_reads drop_writes\n");
        assertThat(build("0 8 flakey sdb 0 1 1 5 corrupt_bio_byte 1 W 7 0\n").text())
                .isEqualTo("0 8 flakey sdb 0 1 1 5 corrupt_bio_byte 1 w 7 0\n");
    }

    @Test
    void statusLinesInTheKernelsFormats() {
        Table striped = build("0 1024 striped 2 256 sdb 0 sdc 0\n");
        assertThat(striped.statusText(StatusType.INFO)).isEqualTo("0 1024 striped 2 sdb sdc 1 AA\n");
        assertThat(striped.statusText(StatusType.TABLE)).isEqualTo("0 1024 striped 2 256 sdb 0 sdc 0\n");
        Table delay = build("0 1024 delay sdb 0 50 sdc 0 100\n");
        assertThat(delay.statusText(StatusType.INFO)).isEqualTo("0 1024 delay 0 0 0\n");
        Table linear = build("0 1024 linear sdb 0\n1024 8 zero\n1032 8 error\n");
        assertThat(linear.statusText(StatusType.INFO)).isEqualTo("0 1024 linear\n1024 8 zero\n1032 8 error\n");
        assertThat(linear.status(StatusType.TABLE)).extracting(TargetStatus::text)
                .containsExactly("0 1024 linear sdb 0", "1024 8 zero", "1032 8 error");
    }
}
