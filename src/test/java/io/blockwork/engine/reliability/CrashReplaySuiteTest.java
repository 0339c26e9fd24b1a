package io.blockwork.engine.reliability;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.PassThroughDevice;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.dm.DmTestDevices;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.targets.logwrites.LogWritesTarget;
import io.blockwork.engine.dm.targets.logwrites.WriteLog;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 2 of issue 13: crash-consistency replay. Each stack is built on slices of one
 * log-writes device, a verifying client runs against the top of the stack, and the log is replayed
 * to every FLUSH and FUA entry in turn ({@link CrashReplay}): at each, every write acknowledged
 * durable before it must be on every copy. {@code -Dblockwork.reliability.scale=N} runs N times
 * the operations (docs/reliability.md).
 */
@Tag("contract")
class CrashReplaySuiteTest {

    static final int SCALE = Integer.getInteger("blockwork.reliability.scale", 1);
    static final VerifyingClient.Config CLIENT =
            new VerifyingClient.Config(4, 64, 300L * SCALE, 30, 20, 8, 13);

    /** One run: the stack on a log-writes device over a writeback disk, the client, then the replay check. */
    static CrashReplay.Result run(String kind, Function<BlockDevice, BlockDevice> inFrontOfTheClient) throws Exception {
        DmTestDevices devs = new DmTestDevices();
        devs.disk("d0", 64L << 20);
        Disk logDisk = devs.disk("log", 1L << 30, DiskConfig.DEFAULT);
        MappedDevice lw = devs.create("lw", "0 " + (64L << 11) + " log-writes d0 log\n");
        LogWritesTarget target = (LogWritesTarget) lw.liveTable().entries().getFirst().target();
        DurabilityLedger ledger = new DurabilityLedger(target::loggedEntries);
        ReplayStack stack = ReplayStack.build(kind, devs);
        try {
            VerifyingClient client = new VerifyingClient(inFrontOfTheClient.apply(stack.top), CLIENT, ledger);
            stack.prepare(client);
            VerifyingClient.Report run = client.run().plus(client.verifyAll());
            assertThat(run.errors()).as("client errors: %s", run).isZero();
            assertThat(run.wrongData()).as("wrong data while running: %s", run).isZero();
            target.publish();
            Disk image = Disk.memory("img", 64L << 20, DiskConfig.DEFAULT);
            CrashReplay.Result result = CrashReplay.check(stack, WriteLog.open(logDisk), image, client, ledger.acks());
            System.out.println("CRASH-REPLAY " + result);
            return result;
        } finally {
            stack.close();
            lw.remove();
        }
    }

    static java.util.List<String> kinds() {
        return ReplayStack.kinds();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void everyWriteAcknowledgedDurableIsThereAtEveryFlushAndFuaPoint(String kind) throws Exception {
        CrashReplay.Result r = run(kind, Function.identity());
        assertThat(r.points()).as("flush/FUA points replayed to").isGreaterThanOrEqualTo(200);
        assertThat(r.losses()).as("acknowledged durable writes missing: %s", r.samples()).isZero();
        assertThat(r.garbage()).as("copies holding data no write put there: %s", r.samples()).isZero();
    }

    /** The check's must-fail twin: a device that acknowledges flushes without sending them down loses writes. */
    @Test
    void aDeviceThatAcknowledgesFlushesItNeverSendsIsCaught() throws Exception {
        CrashReplay.Result r = run("linear", FlushSwallowingDevice::new);
        assertThat(r.points()).as("FUA points are still there").isGreaterThan(0);
        assertThat(r.losses()).as("writes acknowledged by a swallowed flush are missing").isPositive();
    }

    /** Completes every flush at once without passing it on, as a disk that lies about its cache does. */
    static final class FlushSwallowingDevice extends PassThroughDevice {
        FlushSwallowingDevice(BlockDevice below) {
            super("liar", below);
        }

        @Override
        protected void dispatch(Bio bio) {
            if (bio.op() == BioOp.FLUSH) {
                bio.endio();
            } else {
                super.dispatch(bio);
            }
        }
    }
}
