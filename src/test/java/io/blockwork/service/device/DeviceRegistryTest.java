package io.blockwork.service.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.service.assembly.ObjectState;
import io.blockwork.service.problem.Problem;
import io.blockwork.service.problem.ProblemException;
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
        Holder md0 = new Holder("array", "md0");
        Holder export = new Holder("export", "e1");
        registry.claim("d1", md0);
        registry.claim("d1", export);
        assertThatThrownBy(() -> registry.unregister("d1")).isInstanceOfSatisfying(ProblemException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.DEVICE_BUSY);
            assertThat(e.properties().get("holders")).isEqualTo(List.of("array md0", "export e1"));
        });
        registry.release("d1", md0);
        registry.release("d1", export);
        registry.unregister("d1");
        assertThat(registry.find("d1")).isEmpty();
    }

    @Test
    void anExclusiveClaimNeedsAFreeDeviceAndKeepsOthersOff() {
        registry.register("d1", DeviceKind.DISK, disk("d1"));
        Holder pool = new Holder("pool", "vg0");
        Holder export = new Holder("export", "e1");
        registry.claim("d1", export);
        assertProblem(() -> registry.claimExclusive("d1", pool), Problem.DEVICE_BUSY);
        assertThat(registry.require("d1").exclusive()).isNull();
        registry.release("d1", export);

        registry.claimExclusive("d1", pool);
        registry.claimExclusive("d1", pool); // again: harmless
        registry.claim("d1", pool);
        assertThatThrownBy(() -> registry.claim("d1", export)).isInstanceOfSatisfying(ProblemException.class, e -> {
            assertThat(e.problem()).isEqualTo(Problem.DEVICE_BUSY);
            assertThat(e.getMessage()).contains("used exclusively by pool vg0");
        });
        assertThat(registry.require("d1").holders()).containsExactly(pool);

        registry.release("d1", pool);
        assertThat(registry.require("d1").exclusive()).isNull();
        registry.claim("d1", export);
        assertThat(registry.require("d1").holders()).containsExactly(export);
    }

    @Test
    void renameMovesTheEntryHoldersAndEngineName() {
        Disk d = disk("old");
        registry.register("old", DeviceKind.DISK, d);
        registry.claim("old", new Holder("pool", "vg0"));
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
