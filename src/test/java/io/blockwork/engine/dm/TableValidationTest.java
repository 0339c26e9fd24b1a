package io.blockwork.engine.dm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Acceptance 5: every refused table names its line, and the device it was loaded into keeps its
 * live table, its inactive table, its event number and its data.
 */
@Tag("unit")
class TableValidationTest {

    private final DmTestDevices devs = new DmTestDevices();
    private MappedDevice vol;

    @BeforeEach
    void devices() {
        devs.disk("d0", 8L << 20);
        devs.disk("d1", 8L << 20);
        devs.add(Disk.memory("big4k", 8L << 20, DiskConfig.writeback().withLogicalBlockSize(4096)));
        vol = devs.create("vol", "0 8192 linear d0 0\n8192 8192 linear d1 0\n");
        devs.create("upper", "0 16384 linear vol 0\n"); // named by the cycle row below
        vol.load("0 16384 striped 2 64 d0 0 d1 0\n", devs); // an inactive table that must survive too
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            syntax                 | 0 8 linear d0 0\\n8 x linear d0 8                 | 2 | invalid length 'x'
            missing fields         | # c\\n\\n0 8                                      | 3 | expected '<start> <length> <target>
            empty table            | # nothing but a comment                           | 1 | the table has no targets
            first not at zero      | # c\\n8 8 linear d0 0                             | 2 | the first target must start at sector 0, not 8
            gap                    | 0 8 linear d0 0\\n16 8 linear d0 8                | 2 | gap in table: target starts at sector 16 but the previous one ends at sector 8
            overlap                | 0 8 linear d0 0\\n4 8 linear d0 8                 | 2 | overlap: target starts at sector 4, before the previous one ends at sector 8
            zero length            | 0 8 linear d0 0\\n8 0 linear d0 8                 | 2 | zero-length target
            unknown target         | 0 8 linear d0 0\\n8 8 raid45 d0                   | 2 | unknown target type 'raid45' (known: linear, striped, zero, error, delay, flakey, mirror, snapshot-origin, snapshot, snapshot-merge, log-writes, thin-pool, thin)
            argument count         | 0 8 linear d0                                     | 1 | linear: Invalid argument count: 1 given, 2 expected (<dev> <offset>)
            bad sector             | 0 8 zero\\n8 8 linear d0 -1                       | 2 | linear: Invalid device sector: '-1'
            unknown device         | 0 8 zero\\n8 8 zero\\n16 8 linear sdz 0           | 3 | linear: Device lookup failed: no device named 'sdz'
            device too small       | 0 8 linear d0 0\\n8 8 linear d1 16380             | 2 | device 'd1' too small for target: start=16380, len=8, dev_size=16384
            striped length         | 0 1000 striped 3 8 d0 0 d1 0 d0 4096              | 1 | striped: Target length not divisible by number of stripes
            striped chunk          | 0 1024 striped 2 0 d0 0 d1 0                      | 1 | striped: Invalid chunk_size: '0'
            striped chunk width    | 0 1024 striped 2 24 d0 0 d1 0                     | 1 | striped: Target length not divisible by chunk size
            striped destinations   | 0 1024 striped 2 8 d0 0 d1                        | 1 | striped: Not enough destinations specified
            delay count            | 0 8 delay d0 0 10 d1                              | 1 | delay: Requires exactly 3, 6 or 9 arguments
            delay value            | 0 8 delay d0 0 10 d1 0 soon                       | 1 | delay: Invalid write delay: 'soon'
            flakey intervals       | 0 8 flakey d0 0 0 0                               | 1 | flakey: Total (up + down) interval is zero
            flakey feature         | 0 8 flakey d0 0 1 1 1 sometimes                   | 1 | flakey: Unrecognised flakey feature requested: 'sometimes'
            flakey conflict        | 0 8 flakey d0 0 1 1 2 drop_writes error_writes    | 1 | flakey: Feature error_writes conflicts with feature drop_writes
            flakey incompatible    | 0 8 flakey d0 0 1 1 6 drop_writes corrupt_bio_byte 1 w 0 0 | 1 | flakey: drop_writes is incompatible with random_write_corrupt or corrupt_bio_byte with the WRITE flag set
            flakey group           | 0 8 flakey d0 0 1 1 3 error_reads                 | 1 | flakey: Invalid number of feature args: 3 announced, 1 given
            zero arguments         | 0 8 zero now                                      | 1 | zero: Invalid argument count: 1 given, 0 expected (no arguments)
            alignment              | 0 8 linear d0 0\\n8 12 linear big4k 0             | 2 | is not aligned to the logical block size 4096 of its devices
            self reference         | 0 8 linear d0 0\\n8 8 linear vol 0                | 2 | device cycle: 'vol' -> 'vol'
            cycle through a device | 0 8 linear upper 0                                | 1 | device cycle: 'vol' -> 'upper' -> 'vol'
            """)
    void aRefusedTableNamesItsLineAndChangesNothing(String what, String text, int line, String message) {
        String live = vol.tableText();
        String loaded = vol.inactiveTableText();
        DeviceInfo before = vol.info();
        byte[] data = new byte[8192];
        new Random(line).nextBytes(data);
        SyncIo.write(vol, 4096 * 512L, MemorySegment.ofArray(data));

        TableException e = catchThrowableOfType(TableException.class, () -> vol.load(text.replace("\\n", "\n"), devs));

        assertThat(e).as(what).isNotNull();
        assertThat(e.line()).as(e.getMessage()).isEqualTo(line);
        assertThat(e.getMessage()).startsWith("line " + line + ": ").contains(message);
        assertThat(vol.tableText()).isEqualTo(live);
        assertThat(vol.inactiveTableText()).isEqualTo(loaded);
        assertThat(vol.info()).isEqualTo(before);
        MemorySegment back = MemorySegment.ofArray(new byte[8192]);
        SyncIo.read(vol, 4096 * 512L, back);
        assertThat(back.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).isEqualTo(data);
    }
}
