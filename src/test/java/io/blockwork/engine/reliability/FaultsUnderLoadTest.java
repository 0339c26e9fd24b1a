package io.blockwork.engine.reliability;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Acceptance 3 of issue 13: faults under load. A verifying client runs against an array; a
 * quarter of the way in, one member gets an error, flakey or delay table (at 1 % or 100 %). On
 * raid1, raid10 and mirror the client must see no error and no wrong data, during the run and in
 * the read-back after it; on raid0 and linear it may see errors, but never wrong data. Then, like
 * mdadm's {@code 01r5integ}: each member of a redundant array failed in turn leaves the array's
 * checksum unchanged. {@code -Dblockwork.reliability.scale=N} runs N times the operations.
 */
@Tag("contract")
class FaultsUnderLoadTest {

    static final VerifyingClient.Config CLIENT =
            new VerifyingClient.Config(4, 64, 600L * CrashReplaySuiteTest.SCALE, 40, 10, 8, 29);

    static List<Arguments> matrix() {
        List<Arguments> out = new ArrayList<>();
        for (String level : List.of("raid1", "raid10", "mirror", "raid0", "linear")) {
            for (String fault : List.of("error", "flakey", "delay")) {
                for (int percent : new int[] {1, 100}) {
                    out.add(Arguments.of(level, fault, percent));
                }
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0}, {1} on one member at {2} %")
    @MethodSource("matrix")
    void aFaultyMemberUnderLoadNeverCostsDataAndCostsNoErrorsWhereThereIsRedundancy(String level, String fault, int percent)
            throws Exception {
        FaultArray a = new FaultArray(level);
        try {
            VerifyingClient client = new VerifyingClient(a.array, CLIENT);
            long used = a.usedOnMember0(CLIENT.blocks() * VerifyingClient.BLOCK);
            client.at(CLIENT.threads() * CLIENT.opsPerThread() / 4,
                    () -> a.swap(0, FaultArray.faultTable(fault, percent, 0, used)));
            VerifyingClient.Report r = client.run().plus(client.verifyAll());
            String member0 = a.member0();
            System.out.printf("FAULTS %-7s %-7s %3d%%  %s; after: %s%n", level, fault, percent, r, member0);

            assertThat(r.wrongData()).as("wrong data: %s", r).isZero();
            if (FaultArray.redundant(level) || fault.equals("delay")) {
                assertThat(r.errors()).as("client errors: %s", r).isZero();
                if (percent == 100 && !fault.equals("delay") && !level.equals("raid0") && !level.equals("linear")) {
                    assertThat(member0).as("the fault was felt: member 0 is out of service").matches("m0 faulty|legs [DFRS]A");
                }
            } else if (!(fault.equals("flakey") && percent == 1)) {
                assertThat(r.errors()).as("errors are reported: %s", r).isPositive();
            }
        } finally {
            a.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"raid1", "raid10", "mirror"})
    void everyMemberFailedInTurnLeavesTheChecksumUnchanged(String level) throws Exception {
        FaultArray a = new FaultArray(level);
        try {
            VerifyingClient client = new VerifyingClient(a.array, CLIENT.withOps(300));
            VerifyingClient.Report r = client.run();
            assertThat(r.errors() + r.wrongData()).as("%s", r).isZero();
            String before = a.checksum();
            for (int i = 0; i < a.members.size(); i++) {
                a.fail(i);
                assertThat(a.checksum()).as("with member %d failed", i).isEqualTo(before);
                a.restore(i);
            }
            assertThat(a.checksum()).as("with every member back").isEqualTo(before);
            assertThat(client.verifyAll().wrongData()).isZero();
        } finally {
            a.close();
        }
    }
}
