package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.md.metadata.Examination;
import io.blockwork.engine.md.metadata.MetadataSpec;
import io.blockwork.engine.md.metadata.Reshape;
import io.blockwork.engine.md.metadata.Superblock;
import io.blockwork.support.Mdadm;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Tag;

/**
 * Debian's mdadm reads the superblocks Blockwork writes: {@code mdadm --examine} on member file
 * images of a raid1 and a raid10 prints the right level, layout, chunk, uuid, role and event
 * count, and finds the checksum correct; {@code mdadm --examine-bitmap} reads the bitmap.
 */
@Tag("real-client")
class MdadmExamineTest {

    private static final long MIB = 1 << 20;

    @TempDir
    Path dir;
    private final List<Disk> disks = new ArrayList<>();
    private final List<MdArray> arrays = new ArrayList<>();

    @AfterEach
    void close() {
        arrays.forEach(MdArray::stop);
        disks.forEach(Disk::close);
    }

    private List<Disk> files(String prefix, int n, long bytes) {
        List<Disk> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Disk d = Disk.createFile(prefix + i, dir.resolve(prefix + i + ".img"), bytes, DiskConfig.DEFAULT);
            disks.add(d);
            out.add(d);
        }
        return out;
    }

    private MdArray create(MdArraySpec spec, List<Disk> members) {
        MdArray a = MdArray.create(spec.withMetadata(MetadataSpec.v12(MetadataSpec.Bitmap.DEFAULT))
                .withAssumeClean(true).withSpeed(SpeedLimits.UNLIMITED), members);
        arrays.add(a);
        byte[] data = new byte[(int) MIB];
        Arrays.fill(data, (byte) 0x5a);
        SyncIo.write(a, 0, MemorySegment.ofArray(data));
        SyncIo.flush(a);
        return a;
    }

    /** mdadm --examine-bitmap reads a regular file as an external bitmap: the internal one's area as a file. */
    private Path bitmapArea(String image) {
        try {
            Path area = dir.resolve(image + ".bitmap");
            Files.write(area, Arrays.copyOfRange(Files.readAllBytes(dir.resolve(image + ".img")), 16 * 512, 16 * 512 + 4096));
            return area;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void mdadmExaminesARaid1Member() throws Exception {
        MdArray a = create(MdArraySpec.of("bwr1", MdLevel.RAID1), files("r1-", 2, 64 * MIB));
        a.stop();
        String uuid = a.spec().metadata().uuid().toString();
        long events = a.metadata().events();

        for (int i = 0; i < 2; i++) {
            Map<String, String> e = Mdadm.examine(dir.resolve("r1-" + i + ".img"), "--examine");
            assertThat(e).containsEntry("Magic", "a92b4efc").containsEntry("Version", "1.2")
                    .containsEntry("Raid Level", "raid1").containsEntry("Raid Devices", "2")
                    .containsEntry("Array UUID", uuid).containsEntry("Name", "bwr1")
                    .containsEntry("Device Role", "Active device " + i).containsEntry("Events", Long.toString(events))
                    .containsEntry("State", "clean").containsEntry("Internal Bitmap", "8 sectors from superblock")
                    .containsEntry("Data Offset", "2048 sectors");
            assertThat(e.get("Array State")).startsWith("AA ");
            assertThat(e.get("Checksum")).matches("[0-9a-f]+ - correct");
        }
        Map<String, String> x = Mdadm.examine(bitmapArea("r1-0"), "--examine-bitmap");
        assertThat(x).containsEntry("Magic", "6d746962").containsEntry("Version", "4").containsEntry("UUID", uuid)
                .containsEntry("Events", Long.toString(events)).containsEntry("State", "OK");
        assertThat(x.get("Bitmap")).contains("bits (chunks)", "0 dirty");
    }

    @Test
    void mdadmExaminesARaid10Member() {
        MdArray a = create(MdArraySpec.of("bwr10", MdLevel.RAID10).withChunk(64 * 1024), files("r10-", 4, 32 * MIB));
        String uuid = a.spec().metadata().uuid().toString();

        a.stop();
        long events = a.metadata().events();
        for (int i = 0; i < 4; i++) {
            Map<String, String> e = Mdadm.examine(dir.resolve("r10-" + i + ".img"), "--examine");
            assertThat(e).containsEntry("Raid Level", "raid10").containsEntry("Raid Devices", "4")
                    .containsEntry("Layout", "near=2").containsEntry("Chunk Size", "64K")
                    .containsEntry("Array UUID", uuid).containsEntry("Device Role", "Active device " + i)
                    .containsEntry("Events", Long.toString(events));
            assertThat(e.get("Checksum")).matches("[0-9a-f]+ - correct");
            assertThat(e.get("Array Size")).startsWith(a.sizeBytes() / 1024 + " KiB");
        }
    }

    /** Parity levels: md's level number, algorithm and chunk, so mdadm names the layout. */
    @Test
    void mdadmExaminesRaid5AndRaid6Members() {
        MdArray r5 = create(MdArraySpec.of("bwr5", MdLevel.RAID5).withChunk(64 * 1024)
                .withParity(ParitySpec.defaults(MdLevel.RAID5).withLayout(ParityLayout.LEFT_ASYMMETRIC)), files("r5-", 4, 32 * MIB));
        MdArray r6 = create(MdArraySpec.of("bwr6", MdLevel.RAID6).withChunk(128 * 1024), files("r6-", 5, 32 * MIB));
        r5.stop();
        r6.stop();
        for (int i = 0; i < 4; i++) {
            Map<String, String> e = Mdadm.examine(dir.resolve("r5-" + i + ".img"));
            assertThat(e).containsEntry("Raid Level", "raid5").containsEntry("Raid Devices", "4")
                    .containsEntry("Layout", "left-asymmetric").containsEntry("Chunk Size", "64K")
                    .containsEntry("Array UUID", r5.spec().metadata().uuid().toString())
                    .containsEntry("Device Role", "Active device " + i).containsEntry("State", "clean")
                    .containsEntry("Events", Long.toString(r5.metadata().events()));
            assertThat(e.get("Checksum")).matches("[0-9a-f]+ - correct");
            assertThat(e.get("Array Size")).startsWith(r5.sizeBytes() / 1024 + " KiB");
            assertThat(e.get("Internal Bitmap")).isEqualTo("8 sectors from superblock");
        }
        for (int i = 0; i < 5; i++) {
            Map<String, String> e = Mdadm.examine(dir.resolve("r6-" + i + ".img"));
            assertThat(e).containsEntry("Raid Level", "raid6").containsEntry("Raid Devices", "5")
                    .containsEntry("Layout", "left-symmetric").containsEntry("Chunk Size", "128K")
                    .containsEntry("Device Role", "Active device " + i);
            assertThat(e.get("Checksum")).matches("[0-9a-f]+ - correct");
            assertThat(e.get("Array Size")).startsWith(r6.sizeBytes() / 1024 + " KiB");
        }
        // the bitmap covers each member's used bytes, as md's raid5 bitmap does (sync_size = the device size)
        Map<String, String> x = Mdadm.examine(bitmapArea("r5-0"), "--examine-bitmap");
        assertThat(x.get("Sync Size")).startsWith(r5.detail().usedDevSizeBytes() / 1024 + " ");
    }
    /**
     * A reshape in the superblock (issue 32's groundwork): a raid5 going from 3 to 4 members, to a
     * 128K chunk, 16 MiB along. mdadm reads the fields where Blockwork writes them: the position,
     * the delta with the counts before and after, the new chunk; and a level change once the new
     * level differs (raid5 to raid6, md's route through the -6 layouts).
     */
    @Test
    void mdadmReadsAReshapeInProgress() throws Exception {
        create(MdArraySpec.of("bwgrow", MdLevel.RAID5).withChunk(64 * 1024), files("g-", 3, 32 * MIB)).stop();
        Path member = dir.resolve("g-0.img");
        Superblock before = superblockOf(member);
        long position = 16 * MIB / 512;
        rewrite(member, before.reshaping(new Reshape(5, position, 1, before.layout(), 256, 0)));

        Map<String, String> e = Mdadm.examine(member);
        assertThat(e).containsEntry("Raid Devices", "4").containsEntry("Delta Devices", "1 (3->4)")
                .containsEntry("New Chunksize", "128K").doesNotContainKey("New Level");
        assertThat(e.get("Reshape pos'n")).startsWith(position / 2 + " (");
        assertThat(e.get("Checksum")).matches("[0-9a-f]+ - correct");

        // raid5 to raid6 as md does it: the takeover makes a raid6 of the -6 layout (Q on the added
        // member), then a reshape restripes it to the plain layout; mdadm names the new layout
        Superblock takenOver = withGeometry(before, 6, 18);
        rewrite(member, takenOver.reshaping(new Reshape(6, position, 1, 2, before.chunkSectors(), 0)));
        assertThat(Mdadm.examine(member)).containsEntry("Raid Level", "raid6").containsEntry("Layout", "left-symmetric-6")
                .containsEntry("New Layout", "left-symmetric").doesNotContainKey("New Chunksize")
                .doesNotContainKey("New Level");
        // new_level, read where mdadm reads it once it differs from the level
        Reshape toRaid6 = new Reshape(6, position, 1, before.layout(), before.chunkSectors(), 0);
        rewrite(member, before.reshaping(toRaid6));
        assertThat(Mdadm.examine(member)).containsEntry("New Level", "raid6").doesNotContainKey("New Layout");
        // and Blockwork reads back what it wrote, and will not assemble a half-reshaped member
        assertThat(superblockOf(member).reshape()).isEqualTo(toRaid6);
        Disk reopened = Disk.openFile("g-0", member, Files.size(member), DiskConfig.DEFAULT);
        disks.add(reopened);
        assertThat(Examination.of(reopened).problem()).contains("mid-reshape");
    }

    private static Superblock withGeometry(Superblock sb, int level, int layout) {
        return new Superblock(sb.featureMap(), sb.arrayUuid(), sb.name(), sb.ctime(), level, layout, sb.size(),
                sb.chunkSectors(), sb.raidDisks(), sb.bitmapOffset(), sb.reshape(), sb.dataOffset(), sb.dataSize(),
                sb.superOffset(), sb.recoveryOffset(), sb.devNumber(), sb.deviceUuid(), sb.devFlags(), sb.bblogShift(),
                sb.bblogSize(), sb.bblogOffset(), sb.utime(), sb.events(), sb.resyncOffset(), sb.roles());
    }

    private static Superblock superblockOf(Path image) throws java.io.IOException {
        try (FileChannel f = FileChannel.open(image, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(Superblock.BLOCK);
            f.read(b, Superblock.V12_SUPER_OFFSET * 512);
            return Superblock.decode(b.array(), Superblock.V12_SUPER_OFFSET).superblock();
        }
    }

    private static void rewrite(Path image, Superblock sb) throws java.io.IOException {
        try (FileChannel f = FileChannel.open(image, StandardOpenOption.WRITE)) {
            f.write(ByteBuffer.wrap(sb.encode()), Superblock.V12_SUPER_OFFSET * 512);
        }
    }
}
