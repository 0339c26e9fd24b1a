package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.md.metadata.MdUuid;
import io.blockwork.engine.md.metadata.MemberLayout;
import io.blockwork.engine.md.metadata.Reshape;
import io.blockwork.engine.md.metadata.Superblock;
import io.blockwork.engine.md.metadata.WriteIntentBitmap;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What an array's metadata puts on its members, and the writes that put it there: each member's
 * v1.2 superblock, built from the array's {@link Identity} and the member's state as a round saw
 * it ({@link Superblock#encode} makes the bytes), written PREFLUSH|FUA to every member that is not
 * faulty; and the write-intent bitmap's pages, FUA to every slot member. A member whose write
 * fails is failed. {@link MemberSuperblocks} decides when a round runs and what it waits for;
 * this class holds no state that changes and takes no lock.
 */
final class SuperblockWrites {

    /**
     * The array-wide superblock fields.
     *
     * @param name {@code set_name}
     * @param ctime creation time, md's packed form
     * @param level md's level number
     * @param layout md's layout code
     * @param chunkSectors chunk (linear: rounding) in sectors, 0 for raid1
     * @param raidDisks slots
     * @param usedSectors sectors of each member the array uses
     * @param bitmapOffset sectors from the superblock to the bitmap
     */
    record Identity(MdUuid uuid, String name, long ctime, int level, int layout, int chunkSectors, int raidDisks,
                    long usedSectors, int bitmapOffset) {}

    private final Identity id;
    private final MemberSet members;
    private final Personality personality;
    private final MemberLayout layout;
    /** The array has a write-intent bitmap (the superblocks point at it). */
    private final boolean withBitmap;

    SuperblockWrites(Identity id, MemberSet members, Personality personality, MemberLayout layout, boolean withBitmap) {
        this.id = id;
        this.members = members;
        this.personality = personality;
        this.layout = layout;
        this.withBitmap = withBitmap;
    }

    /**
     * Sets each of {@code attached}'s role in {@code roles}; returns those that get a superblock.
     * One reading of each member's state gives both its role and whether it is written: a member
     * failed and then removed while the round runs (REMOVED by the write) must not get a
     * superblock, as md never writes a Faulty rdev's; its own then still places it for --re-add.
     */
    static List<Member> roles(List<Member> attached, List<Integer> roles) {
        List<Member> targets = new ArrayList<>();
        for (Member m : attached) {
            MemberState state = m.state();
            roles.set(m.number(), roleOf(state, m.slot()));
            if (state != MemberState.FAULTY && state != MemberState.REMOVED) {
                targets.add(m);
            }
        }
        return targets;
    }

    private static int roleOf(MemberState state, int slot) {
        return switch (state) {
            case IN_SYNC, REBUILDING -> slot;
            case FAULTY -> Superblock.ROLE_FAULTY;
            case SPARE, REMOVED -> Superblock.ROLE_SPARE;
        };
    }

    /** The array's resync_offset: 0 while {@code active}, else how far the resync got, {@link Superblock#MAX_SECTOR} when done. */
    long resyncOffsetSectors(boolean active) {
        if (active) {
            return 0;
        }
        if (!(personality instanceof Redundancy r) || r.syncedTo() == Long.MAX_VALUE) {
            return Superblock.MAX_SECTOR;
        }
        return r.syncOffsetOf(r.syncedTo()) >>> 9;
    }

    /** Writes a round's superblocks to {@code targets}, all at once, and waits; a member whose write fails is failed. */
    void superblocks(List<Member> targets, long ev, long resyncOffset, List<Integer> roles) {
        long now = Superblock.packTime(Instant.now());
        List<SyncIo.Waiter> waits = new ArrayList<>();
        for (Member m : targets) {
            byte[] block = superblockFor(m, ev, now, resyncOffset, roles).encode();
            SyncIo.Waiter w = new SyncIo.Waiter();
            m.device().submit(Bio.of(BioOp.WRITE, Superblock.V12_SUPER_OFFSET * 512, block.length,
                    BioFlags.of(true, true, true), MemorySegment.ofArray(block), w));
            waits.add(w);
        }
        for (int i = 0; i < targets.size(); i++) {
            if (!waits.get(i).await().ok()) {
                members.failed(targets.get(i), "superblock write error");
            }
        }
    }

    /** The superblock {@code m} gets in a round. */
    Superblock superblockFor(Member m, long ev, long time, long resyncOffset, List<Integer> roles) {
        boolean rebuilding = m.state() == MemberState.REBUILDING;
        int features = (withBitmap ? Superblock.FEATURE_BITMAP_OFFSET : 0)
                | (rebuilding ? Superblock.FEATURE_RECOVERY_OFFSET : 0)
                | (rebuilding && m.replacement() ? Superblock.FEATURE_REPLACEMENT : 0)
                | (rebuilding && m.bitmapRecovery() ? Superblock.FEATURE_RECOVERY_BITMAP : 0);
        return new Superblock(features, id.uuid(), id.name(), id.ctime(), id.level(), id.layout(), id.usedSectors(),
                id.chunkSectors(), id.raidDisks(), withBitmap ? id.bitmapOffset() : 0, Reshape.NONE, m.dataOffset() >>> 9,
                personality.recordedDataBytes(m) >>> 9, Superblock.V12_SUPER_OFFSET,
                rebuilding ? m.rebuilt() >>> 9 : 0, m.number(), m.uuid(),
                m.writeMostly() ? Superblock.DEV_FLAG_WRITE_MOSTLY : 0, 0, layout.bblogSize(), layout.bblogOffset(),
                time, ev, resyncOffset, roles);
    }

    /* ---- Bitmap writes ---- */

    private long bitmapStart() {
        return (Superblock.V12_SUPER_OFFSET + id.bitmapOffset()) * 512;
    }

    /** Members that hold a slot (in sync or rebuilding, replacements too): md writes the bitmap to these. */
    private List<Member> slotMembers() {
        MemberSet.Table t = members.table();
        List<Member> out = new ArrayList<>();
        for (Member[] row : new Member[][] {t.slots(), t.replacements()}) {
            for (Member m : row) {
                if (m != null && m.writable()) {
                    out.add(m);
                }
            }
        }
        return out;
    }

    /** The bitmap's {@link WriteIntentBitmap.Store}: one page to every slot member, FUA; a member that fails it is failed. */
    void writeBitmap(long areaOffset, byte[] data, boolean preflush, Runnable done) {
        List<Member> targets = slotMembers();
        if (targets.isEmpty()) {
            done.run();
            return;
        }
        MemorySegment page = MemorySegment.ofArray(data);
        AtomicInteger left = new AtomicInteger(targets.size());
        for (Member m : targets) {
            m.device().submit(Bio.of(BioOp.WRITE, bitmapStart() + areaOffset, data.length,
                    BioFlags.of(preflush, true, true), page, bio -> {
                        if (!bio.status().ok()) {
                            members.failed(m, "bitmap write error");
                        }
                        if (left.decrementAndGet() == 0) {
                            done.run();
                        }
                    }));
        }
    }
}
