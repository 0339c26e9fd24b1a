package io.blockwork.engine.dm.snapshot;

import static io.blockwork.engine.dm.snapshot.SnapshotRig.assertHolds;
import static io.blockwork.engine.dm.snapshot.SnapshotRig.image;
import static io.blockwork.engine.dm.snapshot.SnapshotRig.randomWrite;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.dm.MappedDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Acceptance 1: several snapshots of one origin, taken at different times between random origin
 * writes, each read back exactly as the origin was when it was taken; snapshot writes land in
 * their snapshot only. Every locking strategy.
 */
@Tag("unit")
class SnapshotDataTest {

    private static final long SIZE = 8L << 20;

    @ParameterizedTest
    @EnumSource(SnapshotLocking.Kind.class)
    void eachSnapshotReadsBackTheOriginAsItWasWhenItWasTaken(SnapshotLocking.Kind locking) {
        SnapshotRig rig = new SnapshotRig(SIZE, locking);
        rig.cow("c1", SIZE + (1 << 20));
        rig.cow("c2", SIZE + (1 << 20));
        rig.cow("c3", SIZE + (1 << 20));
        Random r = new Random(42);
        byte[] model = new byte[(int) SIZE];
        for (int i = 0; i < 50; i++) {
            randomWrite(rig.volume, model, r);
        }
        MappedDevice s1 = rig.snapshot("s1", "c1", StoreType.TRANSIENT, 8);
        byte[] at1 = image(rig.volume);
        assertThat(at1).isEqualTo(model);
        for (int i = 0; i < 200; i++) {
            randomWrite(rig.volume, model, r);
        }
        MappedDevice s2 = rig.snapshot("s2", "c2", StoreType.PERSISTENT, 16);
        byte[] at2 = model.clone();
        for (int i = 0; i < 200; i++) {
            randomWrite(rig.volume, model, r);
        }
        MappedDevice s3 = rig.snapshot("s3", "c3", StoreType.PERSISTENT_OVERFLOW, 32);
        byte[] at3 = model.clone();
        for (int i = 0; i < 200; i++) {
            randomWrite(rig.volume, model, r);
        }

        assertHolds(s1, at1, "snapshot 1 (N, 4 KiB chunks)");
        assertHolds(s2, at2, "snapshot 2 (P, 8 KiB chunks)");
        assertHolds(s3, at3, "snapshot 3 (PO, 16 KiB chunks)");
        assertHolds(rig.volume, model, "the origin");

        // Writes to a snapshot change that snapshot only; partial and whole chunks, any alignment.
        for (int i = 0; i < 100; i++) {
            randomWrite(s2, at2, r);
            randomWrite(s1, at1, r);
        }
        assertHolds(s1, at1, "snapshot 1 after its own writes");
        assertHolds(s2, at2, "snapshot 2 after its own writes");
        assertHolds(s3, at3, "snapshot 3");
        assertHolds(rig.volume, model, "the origin after snapshot writes");
        for (String s : List.of("s1", "s2", "s3")) {
            assertThat(((MappedDevice) rig.devs.find(s)).statusText()).doesNotContain("Invalid");
        }
    }

    /**
     * One write over thousands of chunks not yet copied, on devices that complete at once: each
     * copy's completion releases the write, whose next chunk starts a copy; on one stack that
     * overflowed it (a 1 MiB write through the API answered 500).
     */
    @ParameterizedTest
    @EnumSource(SnapshotLocking.Kind.class)
    void oneLargeWriteOverManyChunksDoesNotOverflowTheStack(SnapshotLocking.Kind locking) {
        SnapshotRig rig = new SnapshotRig(SIZE, locking);
        rig.cow("c1", SIZE + (1 << 20));
        Random r = new Random(7);
        byte[] model = new byte[(int) SIZE];
        for (int i = 0; i < 20; i++) {
            randomWrite(rig.volume, model, r);
        }
        MappedDevice s1 = rig.snapshot("s1", "c1", StoreType.PERSISTENT, 8);
        byte[] at1 = model.clone();

        SnapshotRig.write(rig.volume, model, 0, (int) SIZE, r); // 2,048 chunks of 4 KiB in one bio

        assertHolds(s1, at1, "the snapshot");
        assertHolds(rig.volume, model, "the origin");
    }

    @ParameterizedTest
    @EnumSource(SnapshotLocking.Kind.class)
    void concurrentOriginAndSnapshotWritersKeepEveryImage(SnapshotLocking.Kind locking) throws Exception {
        SnapshotRig rig = new SnapshotRig(SIZE, locking);
        rig.cow("c1", 2 * SIZE);
        rig.cow("c2", 2 * SIZE);
        byte[] model = new byte[(int) SIZE];
        Random seed = new Random(7);
        for (int i = 0; i < 100; i++) {
            randomWrite(rig.volume, model, seed);
        }
        MappedDevice s1 = rig.snapshot("s1", "c1", StoreType.PERSISTENT, 8);
        byte[] at1 = model.clone();
        concurrently(4, w -> {
            Random r = new Random(100 + w);
            for (int i = 0; i < 300; i++) {
                region(rig.volume, model, w, 4, r);
            }
        });
        MappedDevice s2 = rig.snapshot("s2", "c2", StoreType.TRANSIENT, 8);
        byte[] at2 = model.clone();
        // Origin writers and writers to both snapshots at once, each on its own quarter of the device.
        concurrently(6, w -> {
            Random r = new Random(200 + w);
            for (int i = 0; i < 300; i++) {
                switch (w % 3) {
                    case 0 -> region(rig.volume, model, w / 3, 2, r);
                    case 1 -> region(s1, at1, w / 3, 2, r);
                    default -> region(s2, at2, w / 3, 2, r);
                }
            }
        });
        assertHolds(rig.volume, model, "the origin");
        assertHolds(s1, at1, "snapshot 1");
        assertHolds(s2, at2, "snapshot 2");
    }

    /** A random write inside part {@code part} of {@code parts} of the device (so concurrent writers never overlap). */
    private static void region(MappedDevice d, byte[] model, int part, int parts, Random r) {
        long region = d.sizeBytes() / parts;
        int len = 512 * (1 + r.nextInt(64));
        long off = part * region + 512L * r.nextInt((int) ((region - len) / 512 + 1));
        SnapshotRig.write(d, model, off, len, r);
    }

    private interface Worker {
        void run(int index) throws Exception;
    }

    private static void concurrently(int n, Worker w) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(n)) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int index = i;
                done.add(pool.submit(() -> {
                    w.run(index);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
    }
}
