package io.blockwork.engine.contract;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The block-device contract kit: every device, md level and dm target extends this with a
 * factory for a fresh device, and passes every check in {@link ContractChecks}.
 *
 * <p>Power-cut checks run against the hook the subclass provides; a device with no volatile cache
 * below it runs them without a cut, which still checks that flush and FUA complete and keep data.
 * Error propagation needs a way to break every medium below; subclasses of devices that cannot
 * fail (null disk) override {@link #errorsReachTheCaller()} with what they can promise instead.
 */
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
    void readsBackWhatWasWritten() {
        ContractChecks.readAfterWrite(dut);
    }

    @Test
    void firstAndLastBlocksAreAddressable() {
        ContractChecks.firstAndLastBlocks(dut);
    }

    @Test
    void largeIoIsSplitAndReassembled() {
        ContractChecks.largeIoAcrossBoundaries(dut);
    }

    @Test
    void badGeometryIsRejectedAndChangesNothing() {
        ContractChecks.rejectsBadGeometry(dut);
    }

    @Test
    void discardAndWriteZeroesReadBackZeros() {
        ContractChecks.discardAndWriteZeroesReadZero(dut);
    }

    @Test
    void concurrentWritersOnDisjointRangesKeepTheirData() throws Exception {
        ContractChecks.concurrentDisjointWriters(dut);
    }

    @Test
    void flushedWritesSurviveAPowerCut() {
        ContractChecks.flushedWriteSurvivesPowerCut(dut);
    }

    @Test
    void fuaWritesSurviveAPowerCut() {
        ContractChecks.fuaWriteSurvivesPowerCut(dut);
    }

    @Test
    void unflushedWritesAreNeverTornByAPowerCut() {
        ContractChecks.unflushedWriteNeverTorn(dut);
    }

    @Test
    protected void errorsReachTheCaller() {
        ContractChecks.errorsReachTheCaller(dut);
    }
}
