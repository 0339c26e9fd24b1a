package io.blockwork.engine.contract;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The block-device contract kit: every device, md level and dm target extends this with a
 * factory for a fresh device, and passes every check in {@link ContractChecks}.
 *
 * <p>Power-cut checks run against the hook the subclass provides; a device with no volatile cache
 * below it runs them without a cut, which still checks that flush and FUA complete and keep data.
 * Error propagation needs a way to break every medium below; subclasses of devices that cannot
 * fail (null disk) override {@link #errorsReachTheCaller()} with what they can promise instead,
 * and devices whose defined behaviour is to fail (a dm error target) override every check with
 * what they promise.
 */
@Tag("contract")
public abstract class BlockDeviceContract {

    private DeviceUnderTest dut;

    /** A fresh device of at least 16 MiB. */
    protected abstract DeviceUnderTest create() throws Exception;

    protected DeviceUnderTest dut() {
        return dut;
    }

    @BeforeEach
    void createDevice() throws Exception {
        dut = create();
    }

    @AfterEach
    void releaseDevice() {
        dut.cleanup().run();
    }

    @Test
    protected void readsBackWhatWasWritten() {
        ContractChecks.readAfterWrite(dut);
    }

    @Test
    protected void firstAndLastBlocksAreAddressable() {
        ContractChecks.firstAndLastBlocks(dut);
    }

    @Test
    protected void largeIoIsSplitAndReassembled() {
        ContractChecks.largeIoAcrossBoundaries(dut);
    }

    @Test
    protected void badGeometryIsRejectedAndChangesNothing() {
        ContractChecks.rejectsBadGeometry(dut);
    }

    @Test
    protected void discardAndWriteZeroesReadBackZeros() {
        ContractChecks.discardAndWriteZeroesReadZero(dut);
    }

    @Test
    protected void concurrentWritersOnDisjointRangesKeepTheirData() throws Exception {
        ContractChecks.concurrentDisjointWriters(dut);
    }

    @Test
    protected void flushedWritesSurviveAPowerCut() {
        ContractChecks.flushedWriteSurvivesPowerCut(dut);
    }

    @Test
    protected void fuaWritesSurviveAPowerCut() {
        ContractChecks.fuaWriteSurvivesPowerCut(dut);
    }

    @Test
    protected void aPreflushWriteKeepsTheWritesBeforeItThroughAPowerCut() {
        ContractChecks.preflushWriteKeepsWhatCameBefore(dut);
    }

    @Test
    protected void unflushedWritesAreNeverTornByAPowerCut() {
        ContractChecks.unflushedWriteNeverTorn(dut);
    }

    @Test
    protected void errorsReachTheCaller() {
        ContractChecks.errorsReachTheCaller(dut);
    }
}
