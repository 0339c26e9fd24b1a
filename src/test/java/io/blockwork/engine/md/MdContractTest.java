package io.blockwork.engine.md;

import io.blockwork.engine.contract.BlockDeviceContract;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.md.metadata.MetadataSpec;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * Every level, healthy and (where it has redundancy) degraded, passes the block-device contract
 * on writeback memory disks; power cuts and breakage go to the member disks.
 */
@Tag("contract")
class MdContractTest {

    private static final long MIB = 1L << 20;

    @Nested
    class LinearOfUnequalDisks extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdFixture f = MdFixture.of(MdFixture.spec(MdLevel.LINEAR), 3, 7 * MIB + 3 * 512);
            return f.underTest();
        }
    }

    @Nested
    class Raid0 extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(MdFixture.spec(MdLevel.RAID0).withChunk(64 * 1024), 3, 8 * MIB).underTest();
        }
    }

    @Nested
    class Raid1 extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(MdFixture.spec(MdLevel.RAID1), 2, 16 * MIB).underTest();
        }
    }

    /** Large enough to span several 64 MiB barrier units, so bios are split at unit boundaries. */
    @Nested
    class Raid1AcrossBarrierUnits extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(MdFixture.spec(MdLevel.RAID1), 2, 160 * MIB).underTest();
        }
    }

    @Nested
    class Raid1ThreeMirrorsDegraded extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdFixture f = MdFixture.of(MdFixture.spec(MdLevel.RAID1), 3, 16 * MIB);
            f.array.fail(f.disk(0).name());
            return f.underTest();
        }
    }

    @Nested
    class Raid10Near extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(MdFixture.raid10("n2"), 4, 8 * MIB).underTest();
        }
    }

    @Nested
    class Raid10NearDegraded extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdFixture f = MdFixture.of(MdFixture.raid10("n2"), 4, 8 * MIB);
            f.array.fail(f.disk(1).name());
            return f.underTest();
        }
    }

    @Nested
    class Raid10FarOnThreeDisks extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(MdFixture.raid10("f2"), 3, 12 * MIB).underTest();
        }
    }

    @Nested
    class Raid10FarDegraded extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdFixture f = MdFixture.of(MdFixture.raid10("f2"), 3, 12 * MIB);
            f.array.fail(f.disk(2).name());
            return f.underTest();
        }
    }

    @Nested
    class Raid10OffsetThreeCopies extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(MdFixture.raid10("o3"), 4, 12 * MIB).underTest();
        }
    }

    @Nested
    class Raid10OffsetDegradedTwice extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdFixture f = MdFixture.of(MdFixture.raid10("o3"), 4, 12 * MIB);
            f.array.fail(f.disk(0).name());
            f.array.fail(f.disk(3).name());
            return f.underTest();
        }
    }

    /** The seeds' "before" strategies keep the contract too. */
    @Nested
    class Raid10SerialFlushLockedBarrier extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdArraySpec spec = MdFixture.raid10("n2").withStrategies(new MdStrategies(FlushStrategy.SERIAL, BarrierStrategy.LOCKED));
            return MdFixture.of(spec, 4, 8 * MIB).underTest();
        }
    }

    /** A new array whose initial resync runs under the contract's I/O. */
    @Nested
    class Raid10WhileResyncing extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdFixture f = MdFixture.of(MdFixture.raid10("n2").withSpeed(new SpeedLimits(2_000, 4_000)), 4, 8 * MIB,
                    DiskConfig.writeback());
            return f.underTest();
        }
    }

    /* ---- With md's v1.2 superblocks (and a write-intent bitmap on the redundant levels) ---- */

    private static MdArraySpec withSuperblocks(MdArraySpec spec) {
        return spec.withMetadata(MetadataSpec.v12(spec.level().redundant() ? new MetadataSpec.Bitmap(64 * 1024, 1) : null));
    }

    @Nested
    class LinearWithSuperblocks extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(withSuperblocks(MdFixture.spec(MdLevel.LINEAR)), 3, 7 * MIB + 3 * 512).underTest();
        }
    }

    @Nested
    class Raid0WithSuperblocks extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(withSuperblocks(MdFixture.spec(MdLevel.RAID0).withChunk(64 * 1024)), 3, 8 * MIB).underTest();
        }
    }

    @Nested
    class Raid1WithBitmap extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(withSuperblocks(MdFixture.spec(MdLevel.RAID1)), 2, 16 * MIB).underTest();
        }
    }

    @Nested
    class Raid10WithBitmapDegraded extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdFixture f = MdFixture.of(withSuperblocks(MdFixture.raid10("n2")), 4, 8 * MIB);
            f.array.fail(f.disk(1).name());
            return f.underTest();
        }
    }

    /** Resync through the bitmap (every bit set at creation) under the contract's I/O. */
    @Nested
    class Raid10WithBitmapWhileResyncing extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdFixture f = MdFixture.of(withSuperblocks(MdFixture.raid10("n2")).withSpeed(new SpeedLimits(2_000, 4_000)), 4,
                    8 * MIB, DiskConfig.writeback());
            return f.underTest();
        }
    }

    /* ---- Parity levels ---- */

    @Nested
    class Raid5 extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(MdFixture.spec(MdLevel.RAID5).withChunk(64 * 1024), 4, 8 * MIB).underTest();
        }
    }

    @Nested
    class Raid5Degraded extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdFixture f = MdFixture.of(MdFixture.spec(MdLevel.RAID5).withChunk(64 * 1024), 4, 8 * MIB);
            f.array.fail(f.disk(1).name());
            return f.underTest();
        }
    }

    @Nested
    class Raid6DoublyDegraded extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            MdFixture f = MdFixture.of(MdFixture.spec(MdLevel.RAID6).withChunk(32 * 1024), 5, 8 * MIB);
            f.array.fail(f.disk(0).name());
            f.array.fail(f.disk(3).name());
            return f.underTest();
        }
    }

    @Nested
    class Raid4 extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(MdFixture.spec(MdLevel.RAID4).withChunk(16 * 1024), 3, 8 * MIB).underTest();
        }
    }

    /* ---- Parity levels with superblocks and a write-intent bitmap ---- */

    @Nested
    class Raid5WithBitmap extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(withSuperblocks(MdFixture.spec(MdLevel.RAID5).withChunk(64 * 1024)), 4, 8 * MIB).underTest();
        }
    }

    @Nested
    class Raid6WithBitmapWhileResyncing extends BlockDeviceContract {
        @Override
        protected DeviceUnderTest create() {
            return MdFixture.of(withSuperblocks(MdFixture.spec(MdLevel.RAID6).withChunk(32 * 1024))
                    .withSpeed(new SpeedLimits(2_000, 4_000)), 5, 8 * MIB, DiskConfig.writeback()).underTest();
        }
    }
}
