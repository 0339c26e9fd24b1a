package io.blockwork.shared.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class DeviceRegistryTest {

    private final DeviceRegistry registry = new DeviceRegistry();

    private static Disk disk(String name) {
        return Disk.memory(name, 1 << 20, DiskConfig.DEFAULT);
    }

    private static void assertProblem(Runnable action, Problem problem) {
        assertThatThrownBy(action::run).isInstanceOfSatisfying(ProblemException.class,
                e -> assertThat(e.problem()).isEqualTo(problem));
    }

    @Test
    void namesAreUniqueAcrossKinds() {
        registry.register("d1", DeviceKind.DISK, disk("d1"));
        assertProblem(() -> registry.register("d1", DeviceKind.ARRAY, disk("d1")), Problem.NAME_TAKEN);
        assertProblem(() -> registry.reserve("d1", DeviceKind.DM, ObjectState.failed("x")), Problem.NAME_TAKEN);
        assertProblem(() -> registry.requireFree("d1"), Problem.NAME_TAKEN);
    }

    @Test
    void badNamesAreRefused() {
        assertProblem(() -> registry.register("D1", DeviceKind.DISK, disk("D1")), Problem.VALIDATION_FAILED);
    }

    @Test
    void aHeldDeviceCannotBeUnregisteredUntilReleased() {
        registry.register("d1", DeviceKind.DISK, disk("d1"));
        Holder table = new Holder("dm", "lin");
        Holder export = new Holder("export", "e1");
        registry.claim("d1", table, Claim.TABLE);
        registry.claim("d1", export, Claim.READER);
        assertThatThrownBy(() -> registry.unregister("d1")).isInstanceOfSatisfying(ProblemException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.DEVICE_BUSY);
            assertThat(e.properties().get("holders")).isEqualTo(List.of("dm lin", "export e1"));
        });
        registry.release("d1", table);
        registry.release("d1", export);
        registry.unregister("d1");
        assertThat(registry.find("d1")).isEmpty();
    }

    @Test
    void anExclusiveClaimNeedsAFreeDeviceAndKeepsOthersOff() {
        registry.register("d1", DeviceKind.DISK, disk("d1"));
        Holder pool = new Holder("pool", "vg0");
        Holder export = new Holder("export", "e1");
        registry.claim("d1", export, Claim.READER);
        assertProblem(() -> registry.claimExclusive("d1", pool), Problem.DEVICE_BUSY);
        assertThat(registry.require("d1").exclusive()).isNull();
        registry.release("d1", export);

        registry.claimExclusive("d1", pool);
        registry.claimExclusive("d1", pool); // again: harmless
        for (Claim other : Claim.values()) {
            assertThatThrownBy(() -> registry.claim("d1", export, other)).as(other.label())
                    .isInstanceOfSatisfying(ProblemException.class, e -> {
                        assertThat(e.problem()).isEqualTo(Problem.DEVICE_BUSY);
                        assertThat(e.getMessage()).contains("in use by pool vg0");
                        assertThat(e.properties().get("holders")).isEqualTo(List.of("pool vg0"));
                    });
        }
        assertThat(registry.require("d1").holders()).containsExactly(pool);
        assertThat(registry.require("d1").exclusive()).isEqualTo(pool);

        registry.release("d1", pool);
        assertThat(registry.require("d1").exclusive()).isNull();
        registry.claim("d1", export, Claim.WRITER);
        assertThat(registry.require("d1").holders()).containsExactly(export);
    }

    /** Every pair of claims, against the table in {@link Claim}'s comment. */
    @Test
    void claimsShareADeviceOnlyAsTheTableSays() {
        String expected = """
                owner               no  no  no  no  no  no
                owner-allowing-raw  no  no  no  no  no  no
                table               no  no  yes yes no  no
                reader              no  no  yes yes yes yes
                writer              no  no  no  yes yes yes
                raw-writer          no  yes yes yes yes yes
                """;
        StringBuilder actual = new StringBuilder();
        for (Claim next : Claim.values()) {
            StringBuilder row = new StringBuilder(String.format("%-20s", next.label()));
            for (Claim held : Claim.values()) {
                DeviceRegistry r = new DeviceRegistry();
                r.register("d", DeviceKind.DISK, disk("d"));
                r.claim("d", new Holder("first", "a"), held);
                boolean shared;
                try {
                    r.claim("d", new Holder("second", "b"), next);
                    shared = true;
                } catch (ProblemException e) {
                    assertThat(e.problem()).isEqualTo(Problem.DEVICE_BUSY);
                    assertThat(e.properties().get("holders")).isEqualTo(List.of("first a"));
                    shared = false;
                }
                row.append(String.format("%-4s", shared ? "yes" : "no"));
            }
            actual.append(row.toString().stripTrailing()).append('\n');
        }
        assertThat(actual.toString()).isEqualTo(expected);
    }

    @Test
    void writesFromOutsideAreRefusedWhileSomethingBuildsOnTheDeviceUnlessRawIsAllowed() {
        registry.register("member", DeviceKind.DISK, disk("member"));
        registry.register("pv", DeviceKind.DISK, disk("pv"));
        registry.register("free", DeviceKind.DISK, disk("free"));
        registry.claim("member", new Holder("array", "md0"), Claim.OWNER_ALLOWING_RAW);
        registry.claimExclusive("pv", new Holder("pool", "vg0"));
        registry.claim("free", new Holder("export", "e"), Claim.WRITER);

        assertThatThrownBy(() -> registry.writable("member", false)).isInstanceOfSatisfying(ProblemException.class,
                e -> assertThat(e.getMessage()).contains("in use by array md0", "raw=true"));
        assertThat(registry.writable("member", true)).isSameAs(registry.device("member"));
        assertThatThrownBy(() -> registry.writable("pv", true)).isInstanceOfSatisfying(ProblemException.class,
                e -> assertThat(e.getMessage()).contains("pool vg0", "does not allow raw access"));
        assertThat(registry.writable("free", false)).isSameAs(registry.device("free"));
    }

    @Test
    void hiddenDevicesTakeNoReaderOrWriterFromOutside() {
        registry.register("v-real", DeviceKind.HIDDEN, disk("v-real"));
        registry.claimExclusive("v-real", new Holder("volume", "v"));
        registry.release("v-real", new Holder("volume", "v")); // even without its holder
        for (Claim outside : List.of(Claim.READER, Claim.WRITER, Claim.RAW_WRITER)) {
            assertProblem(() -> registry.claim("v-real", new Holder("export", "e"), outside), Problem.DEVICE_BUSY);
        }
        assertProblem(() -> registry.writable("v-real", true), Problem.DEVICE_BUSY);
        registry.claim("v-real", new Holder("snapshot", "s"), Claim.OWNER);
    }

    @Test
    void renameMovesTheEntryHoldersAndEngineName() {
        Disk d = disk("old");
        registry.register("old", DeviceKind.DISK, d);
        registry.claimExclusive("old", new Holder("pool", "vg0"));
        registry.rename("old", "new");
        assertThat(registry.find("old")).isEmpty();
        assertThat(registry.require("new").holders()).containsExactly(new Holder("pool", "vg0"));
        assertThat(d.name()).isEqualTo("new");
    }

    @Test
    void aReservedNameHasNoLiveDevice() {
        registry.reserve("gone", DeviceKind.DISK, ObjectState.failed("its image file is missing"));
        assertThatThrownBy(() -> registry.device("gone")).isInstanceOfSatisfying(ProblemException.class,
                e -> assertThat(e.getMessage()).contains("its image file is missing"));
        assertProblem(() -> registry.device("nobody"), Problem.NOT_FOUND);
    }

    @Test
    void concurrentRegistrationsOfOneNameLetExactlyOneWin() throws Exception {
        int threads = 16;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    try {
                        registry.register("race", DeviceKind.DISK, disk("race"));
                        return true;
                    } catch (ProblemException e) {
                        return false;
                    }
                }));
            }
            start.countDown();
            int winners = 0;
            for (Future<Boolean> f : results) {
                winners += f.get() ? 1 : 0;
            }
            assertThat(winners).isEqualTo(1);
        }
    }
}
