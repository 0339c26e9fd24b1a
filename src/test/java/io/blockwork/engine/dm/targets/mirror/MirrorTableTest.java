package io.blockwork.engine.dm.targets.mirror;

import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.assertSame;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.random;
import static io.blockwork.engine.dm.targets.mirror.MirrorFixture.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.blockwork.engine.block.ManualClock;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.TableSpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Acceptance 5: a mirror line with bad arguments is refused with its line number and the
 * kernel's message, and the device it was loaded into keeps its tables, state, log and data; no
 * worker is started for a refused table.
 */
@Tag("unit")
class MirrorTableTest {

    private final DmTestDevices devs = new DmTestDevices();
    @RegisterExtension
    final MirrorFixture fx = new MirrorFixture(devs);
    private MappedDevice vol;
    private Disk log;

    @BeforeEach
    void devices() {
        // Time stands still, so the live table's lazy clearing cannot write the log during a check.
        ManualClock clock = new ManualClock();
        devs.config(devs.config().withTimer(clock).withClock(clock::nanos));
        devs.disk("d0", 8L << 20);
        devs.disk("d1", 8L << 20);
        devs.disk("d2", 8L << 20);
        devs.disk("tiny", 4096);
        log = devs.disk("log", 1L << 20);
        vol = fx.create("vol", "0 8192 mirror disk 3 log 128 nosync 2 d0 0 d1 0 1 handle_errors\n");
        SyncIo.write(vol, 0, random(1, 65536));
    }

    private static long workers() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("kmirrord-")).count();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            no arguments         | 8192 mirror                                                | Insufficient mirror log arguments
            unknown log type     | 8192 mirror tape 1 128 2 d0 0 d1 0                         | Error creating mirror dirty log: unknown log type 'tape' (core, disk)
            log count            | 8192 mirror core x 128 2 d0 0 d1 0                         | Invalid mirror log argument count: 'x'
            log count too big    | 8192 mirror core 9 128                                     | Insufficient mirror log arguments: 9 announced, 1 given
            core arguments       | 8192 mirror core 3 128 nosync x 2 d0 0 d1 0                | wrong number of arguments to dirty region log: 3 (core takes <region size> [[no]sync])
            disk arguments       | 8192 mirror disk 1 log 2 d0 0 d1 0                         | wrong number of arguments to disk dirty region log: 1 (disk takes <log dev> <region size> [[no]sync])
            region not a number  | 8192 mirror core 1 abc 2 d0 0 d1 0                         | invalid region size abc: not a number
            region not pow2      | 8192 mirror core 1 100 2 d0 0 d1 0                         | invalid region size 100: a power of two of at least 8 sectors is needed
            region too small     | 8192 mirror core 1 4 2 d0 0 d1 0                           | invalid region size 4: a power of two of at least 8 sectors is needed
            region too large     | 8192 mirror core 1 16384 2 d0 0 d1 0                       | invalid region size 16384: larger than the target (8192 sectors)
            region not dividing  | 8200 mirror core 1 128 2 d0 0 d1 0                         | invalid region size 128: the target length (8200 sectors) is not a multiple of it
            sync word            | 8192 mirror core 2 128 maybe 2 d0 0 d1 0                   | unrecognised sync argument to dirty region log: maybe
            one leg              | 8192 mirror core 1 128 1 d0 0                              | Invalid number of mirrors: '1'
            ten legs             | 8192 mirror core 1 128 10 d0 0 d1 0                        | Invalid number of mirrors: '10'
            leg arguments        | 8192 mirror core 1 128 2 d0 0 d1                           | Too few mirror arguments: 2 legs need 4 device/offset arguments, 3 given
            missing leg          | 8192 mirror core 1 128 2 d0 0 dx 0                         | Device lookup failure: no device named 'dx'
            missing log device   | 8192 mirror disk 2 lx 128 2 d0 0 d1 0                      | Error creating mirror dirty log: log device lookup failure: no device named 'lx'
            log device too small | 8192 mirror disk 2 tiny 128 2 d0 0 d1 0                    | log device tiny too small: need 8192 bytes
            leg offset           | 8192 mirror core 1 128 2 d0 0 d1 x                         | Invalid offset: 'x'
            feature count        | 8192 mirror core 1 128 2 d0 0 d1 0 3 handle_errors         | Not enough arguments to support feature count: 3 announced, 1 given
            unknown feature      | 8192 mirror core 1 128 2 d0 0 d1 0 1 fast_reads            | Unrecognised feature requested: 'fast_reads'
            keep_log             | 8192 mirror core 1 128 2 d0 0 d1 0 2 handle_errors keep_log | keep_log is not supported (it is for cluster logs)
            throttle value       | 8192 mirror core 1 128 2 d0 0 d1 0 1 io_throttle           | io_throttle needs a value: 1 feature arguments announced
            throttle number      | 8192 mirror core 1 128 2 d0 0 d1 0 2 io_throttle fast      | Invalid io_throttle (bytes per second): 'fast'
            left over            | 8192 mirror core 1 128 2 d0 0 d1 0 1 handle_errors extra   | Too many mirror arguments: 1 left over
            leg twice            | 8192 mirror core 1 128 2 d0 0 d0 8192                      | legs 0 and 1 are both on device d0
            log is a leg         | 8192 mirror disk 2 d0 128 2 d0 0 d1 0                      | the log device d0 is also leg 0
            leg area too small   | 8192 mirror core 1 128 2 d0 0 d1 16000                     | device 'd1' too small for target: start=16000, len=8192, dev_size=16384
            """)
    void aBadMirrorLineIsRefusedWithItsLineAndChangesNothing(String name, String line, String message) {
        String table = "0 8 linear d2 0\n8 " + line + "\n";
        String liveTable = vol.tableText();
        String status = vol.statusText();
        long events = vol.info().eventNumber();
        long logWrites = log.counters().writes();
        long workersBefore = workers();

        TableException e = catchThrowableOfType(TableException.class, () -> vol.load(table, devs));
        assertThat(e).as("refused").isNotNull();
        assertThat(e.line()).isEqualTo(2);
        // The target's own refusals carry its name; the device-area check is the table's.
        assertThat(e.reason()).isEqualTo(message.startsWith("device '") ? message : "mirror: " + message);

        assertThat(vol.tableText()).isEqualTo(liveTable);
        assertThat(vol.inactiveTableText()).isEmpty();
        assertThat(vol.statusText()).isEqualTo(status);
        assertThat(vol.info().eventNumber()).isEqualTo(events);
        assertThat(log.counters().writes()).as("the log device was not touched").isEqualTo(logWrites);
        assertThat(workers()).as("no worker started").isLessThanOrEqualTo(workersBefore);
        assertSame(read(vol, 0, 65536), random(1, 65536), "data through the live table");
    }

    @Test
    void theTableTextRoundTrips() {
        for (String t : new String[] {
                "0 8192 mirror core 1 128 2 d0 0 d1 0\n",
                "0 8192 mirror core 2 1024 sync 3 d0 0 d1 8 d2 16 1 handle_errors\n",
                "0 8192 mirror disk 3 log 256 nosync 2 d1 0 d0 0 3 handle_errors io_throttle 1048576\n",
                "0 8192 mirror disk 2 log 8 2 d0 0 d1 0 2 io_throttle 1\n"}) {
            TableSpec spec = TableSpec.parse(t);
            io.blockwork.engine.dm.Table built = io.blockwork.engine.dm.Table.build(spec, devs, devs.config(), null);
            try {
                assertThat(built.text()).isEqualTo(t);
                assertThat(built.spec()).isEqualTo(spec);
            } finally {
                built.close();
            }
        }
    }
}
