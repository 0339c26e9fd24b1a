package io.blockwork.engine.md;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.Extents;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoCounters;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.event.EngineEvent;
import io.blockwork.engine.event.EngineListener;
import io.blockwork.engine.md.metadata.MdUuid;
import io.blockwork.engine.md.metadata.MemberLayout;
import io.blockwork.engine.md.metadata.Superblock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * An md array: a block device made of member devices by a {@link Personality} (linear, raid0,
 * raid1, raid10, raid4/5/6), with mdadm's management operations and, for the redundant levels, a
 * {@link SyncDaemon} for resync, recovery and scrubbing.
 *
 * <p>The I/O path: the block core has checked and split the bio at the personality's boundary;
 * {@link #dispatch} refuses I/O on an inactive array, hands FLUSH and PREFLUSH to the array's
 * {@link ArrayFlush} strategy, and everything else to the personality. Members are any block
 * devices. Without metadata they are used from offset 0 and whoever keeps the configuration
 * (the service's database) is the only record; with v1.2 metadata each carries md's superblock
 * and the data starts at mdadm's data offset, and {@link MemberSuperblocks} records every change
 * on the members themselves ({@link MdAssembly} reads them back).
 *
 * <p>An array becomes inactive when some data has no in-sync copy left (it then fails all I/O,
 * and {@link MdDetail#inactiveReason()} says why) or when it is stopped.
 *
 * <p>Size note: over 400 lines because it is the array's core, md.c's part of md — the three ways
 * an array comes to be (create, assemble from a stored configuration, assemble from superblocks via
 * {@link MdAssembly}), dispatch, mdadm's management calls (fail, remove, add, replace, re-add,
 * sync actions, stop) changing the member table under the array's one lock, and status.
 * Everything with a life of its own is elsewhere: the levels, {@link MemberSet},
 * {@link MemberSuperblocks}, {@link SyncDaemon}, the flush strategies, and which devices may
 * make or join an array ({@link MemberAdmission}).
 */
public final class MdArray extends AbstractBlockDevice {

    /** How long after its last write an array still reports "active" (md's safe_mode_delay). */
    private static final long SAFE_MODE_NANOS = 200_000_000L;

    private final MdArraySpec spec;
    private final MemberSet members;
    private final Personality personality;
    private final DeviceLimits limits;
    private final ArrayFlush flush;
    /** Null for linear and raid0. */
    private final SyncDaemon daemon;
    /** The superblocks and bitmap; {@link ArrayMetadata#NONE} without metadata. */
    private final ArrayMetadata metadata;
    /** Where joining members' data starts (md's data_offset); 0 without metadata. */
    private final long dataOffset;
    private volatile String stopReason;
    /** Who is told what happens to the array; see {@link #onChange} and {@link #listen}. */
    private final ArrayEvents events = new ArrayEvents(this::name);
    /** Writes counted when the state was last asked for, and when they changed. */
    @GuardedBy("this")
    private long writesSeen;
    private long writesChangedNanos;

    /**
     * @param setup how the superblocks start; null without metadata
     * @param journal raid4/5/6's write journal device, or null
     * @param replay the journal's records are replayed (assembly) rather than formatted (create)
     */
    MdArray(MdArraySpec spec, MemberSet members, long memberBytes, boolean clean, MemberSuperblocks.Setup setup,
            BlockDevice journal, boolean replay) {
        super(spec.name());
        this.spec = spec;
        this.members = members;
        Member[] slots = members.table().slots();
        List<Member> present = java.util.Arrays.stream(slots).filter(Objects::nonNull).toList();
        int lbs = present.stream().mapToInt(m -> m.device().limits().logicalBlockSize()).max().orElseThrow();
        long smallest = memberBytes > 0 ? memberBytes : present.stream().mapToLong(Member::dataBytes).min().orElseThrow();
        this.personality = switch (spec.level()) {
            case LINEAR -> new Linear(slots, spec.chunkBytes(), lbs);
            case RAID0 -> new Raid0(slots, spec.chunkBytes());
            case RAID1 -> new Raid1(members, slots.length, smallest, clean);
            case RAID10 -> new Raid10(members, Raid10Geometry.of(spec.layout(), slots.length, spec.chunkBytes() >>> 9,
                    smallest >>> 9), clean, spec.strategies().barrier());
            case RAID4, RAID5, RAID6 -> new Raid5(members, ParityGeometry.of(spec.level(), spec.parity().layout(),
                    slots.length, spec.chunkBytes(), smallest), clean, spec.parity().stripeCacheSize(), journal);
        };
        if (journal != null && !(personality instanceof Raid5)) {
            throw new MdArgumentException("journal", "only raid4/5/6 have a write journal, not " + spec.level().label());
        }
        if (journal != null && setup != null) {
            throw new MdArgumentException("journal", "a write journal goes with metadata none here: md records the journal"
                    + " device in the superblocks, which Blockwork does not write yet");
        }
        for (int i = 0; i < slots.length; i++) {
            Member m = slots[i];
            if (m != null && spec.level() != MdLevel.LINEAR && m.dataBytes() < personality.usedMemberBytes()) {
                throw new MdArgumentException("members[" + i + "]", m.name() + " has " + m.dataBytes() + " bytes"
                        + (m.dataOffset() > 0 ? " after its data offset" : "") + "; the array uses "
                        + personality.usedMemberBytes() + " of each member");
            }
        }
        DeviceLimits l = DeviceLimits.of(lbs);
        for (Member m : present) {
            l = l.stack(m.device().limits());
        }
        if (personality instanceof Raid5 r5) {
            l = l.withMaxIo(Math.max(l.maxIoBytes(), r5.maxIoBytes()));
        }
        this.limits = l.withBoundary(personality.boundaryBytes());
        this.flush = ArrayFlush.create(spec.strategies().flush(), this);
        members.survivalRule(personality::survives);
        if (personality instanceof Raid5 r5 && r5.journal != null) {
            List<BlockDevice> devices = java.util.Arrays.stream(slots).map(m -> m == null ? null : m.device()).toList();
            if (replay) {
                r5.journal.replay(devices);
            } else {
                r5.journal.format();
            }
        }
        this.daemon = personality instanceof Redundancy r
                ? new SyncDaemon(spec.name(), r, members, spec.speed(), this::userRequests, events::changed, events::publish)
                : null;
        this.dataOffset = setup == null ? 0 : setup.dataOffset();
        this.metadata = setup == null ? ArrayMetadata.NONE : MemberSuperblocks.of(spec, members, personality, setup);
        if (personality instanceof Redundancy r) {
            r.metadata(metadata);
        }
        if (setup != null) {
            members.placement(d -> new MemberSet.Placement(dataOffset, MdUuid.random()));
        }
        members.onFailure(member -> {
            wakeDaemon();
            events.changed();
            events.publish(name -> new EngineEvent.MemberFailed(name, member.name(), member.faultReason(), false));
        });
        if (metadata instanceof MemberSuperblocks s) {
            members.onChange(s::wake);
        }
        this.writesChangedNanos = System.nanoTime() - SAFE_MODE_NANOS;
    }

    /**
     * {@code mdadm --create}: a new array over {@code members} in slot order. Redundant levels
     * start with a resync unless the spec assumes the members clean. With v1.2 metadata every
     * member gets its superblock (and the bitmap) before this returns.
     */
    public static MdArray create(MdArraySpec spec, List<? extends BlockDevice> members) {
        return create(spec, members, null);
    }

    /**
     * {@code mdadm --create --write-journal}: as {@link #create(MdArraySpec, List)}, raid4/5/6
     * with a write journal on {@code journal} (null for none), which is formatted.
     */
    public static MdArray create(MdArraySpec spec, List<? extends BlockDevice> members, BlockDevice journal) {
        return create(spec, members, journal, EngineListener.NONE);
    }

    /** {@link #create(MdArraySpec, List, BlockDevice)}, telling {@code listener} from the start (the initial resync's first event included). */
    public static MdArray create(MdArraySpec spec, List<? extends BlockDevice> members, BlockDevice journal,
                                 EngineListener listener) {
        MemberAdmission.checkMembers(spec.level(), members, false);
        MemberAdmission.checkJournal(journal, members);
        if (!spec.metadata().present()) {
            MdArray array = new MdArray(spec, new MemberSet(spec.level(), members), 0, spec.assumeClean(), null, journal,
                    false);
            array.listen(listener);
            array.startDaemon();
            return array;
        }
        long chunkSectors = spec.level() == MdLevel.RAID1 ? 0 : spec.chunkBytes() >>> 9;
        long dataOffset = MemberLayout.defaultDataOffset(members.getFirst().sizeBytes() >>> 9, chunkSectors) << 9;
        Member[] slots = new Member[members.size()];
        for (int i = 0; i < slots.length; i++) {
            BlockDevice d = members.get(i);
            if (d.sizeBytes() <= dataOffset) {
                throw new MdArgumentException("members[" + i + "]", d.name() + " has " + d.sizeBytes() + " bytes; md's v1.2"
                        + " metadata puts the data " + dataOffset + " bytes in, so a member needs more (or use metadata none)");
            }
            slots[i] = new Member(d, i, MemberState.IN_SYNC, i, dataOffset, MdUuid.random());
        }
        boolean clean = spec.assumeClean() || !spec.level().redundant();
        MdArray array = new MdArray(spec, new MemberSet(spec.level(), slots, new Member[slots.length], List.of(), slots.length),
                0, spec.assumeClean(), new MemberSuperblocks.Setup(spec.name(), Superblock.packTime(Instant.now()), dataOffset,
                        0, clean, null, null, 0, 0), journal, false);
        array.listen(listener);
        array.startMetadata();
        array.startDaemon();
        return array;
    }

    /**
     * {@code mdadm --assemble} of an existing array: {@code slots} in slot order with null for a
     * missing member (redundant levels only), plus spares. No resync, except for a parity array
     * whose spec does not assume it clean (it was not stopped cleanly). {@code memberBytes} is the
     * array's earlier {@link MdDetail#usedDevSizeBytes()} (0 to compute it from the members).
     * Missing members leave the array degraded, or inactive with the reason in its detail (an
     * inactive array takes no spares; they stay free).
     */
    public static MdArray assemble(MdArraySpec spec, List<? extends BlockDevice> slots,
                                   List<? extends BlockDevice> spares, long memberBytes) {
        return assemble(spec, slots, spares, memberBytes, null);
    }

    /**
     * As {@link #assemble(MdArraySpec, List, List, long)} with the array's write journal (null for
     * none): its records are written to the members first, after which an array stopped uncleanly
     * needs no resync (its spec may then assume it clean).
     */
    public static MdArray assemble(MdArraySpec spec, List<? extends BlockDevice> slots,
                                   List<? extends BlockDevice> spares, long memberBytes, BlockDevice journal) {
        return assemble(spec, slots, spares, memberBytes, journal, EngineListener.NONE);
    }

    /** {@link #assemble(MdArraySpec, List, List, long, BlockDevice)}, telling {@code listener} from the start. */
    public static MdArray assemble(MdArraySpec spec, List<? extends BlockDevice> slots,
                                   List<? extends BlockDevice> spares, long memberBytes, BlockDevice journal,
                                   EngineListener listener) {
        MemberAdmission.checkMembers(spec.level(), slots, true);
        MemberAdmission.checkJournal(journal, slots);
        // A parity array assembled dirty resyncs (and, degraded, refuses to rebuild unsynced stripes).
        MdArray array = new MdArray(spec, new MemberSet(spec.level(), slots), memberBytes,
                !spec.level().parity() || spec.assumeClean(), null, journal, true);
        array.listen(listener);
        if (array.inactiveReason() == null) {
            for (BlockDevice spare : spares) {
                array.add(spare);
            }
        }
        array.startDaemon();
        return array;
    }

    /** Writes the first superblocks; the array then records its own changes. */
    void startMetadata() {
        if (metadata instanceof MemberSuperblocks s) {
            s.start();
        }
    }

    void startDaemon() {
        if (daemon != null) {
            daemon.start();
        }
    }

    /* ---- Block device ---- */

    @Override
    protected void dispatch(Bio bio) {
        if (members.lostReason() != null || stopReason != null) {
            bio.endio(IoStatus.IO_ERROR);
        } else if (bio.op() == BioOp.FLUSH) {
            flush.submit(bio);
        } else {
            personality.submit(bio);
        }
    }

    @Override
    public void allocation(long offset, long length, Extents out) {
        if (members.lostReason() != null || stopReason != null) {
            out.add(length, Allocation.DATA); // reads fail: nothing to promise
        } else {
            personality.allocation(offset, length, out);
        }
    }

    @Override
    public long sizeBytes() {
        return personality.sizeBytes();
    }

    @Override
    public DeviceLimits limits() {
        return limits;
    }

    /** Every attached member device, spares and failed ones included (sysfs's {@code slaves}). */
    @Override
    public Collection<BlockDevice> lowerDevices() {
        List<BlockDevice> out = new java.util.ArrayList<>(members.all().stream().map(Member::device).toList());
        BlockDevice j = journal();
        if (j != null) {
            out.add(j);
        }
        return out;
    }

    /** raid4/5/6's write-journal device, or null. */
    public BlockDevice journal() {
        return personality instanceof Raid5 r5 && r5.journal != null ? r5.journal.device() : null;
    }

    /** The write journal's state, or null without one. */
    public JournalStatus journalStatus() {
        return personality instanceof Raid5 r5 && r5.journal != null ? r5.journal.status() : null;
    }

    /**
     * A member's flush failed (the flush strategies' shared rule): the member is failed, and
     * {@code done} gets the parent flush's status once the failure is recorded on the survivors.
     */
    void memberFlushFailed(Member m, java.util.function.Consumer<IoStatus> done) {
        if (!spec.level().redundant()) {
            done.accept(IoStatus.IO_ERROR);
            return;
        }
        IoStatus status = members.failed(m, "flush error") ? IoStatus.OK : IoStatus.IO_ERROR;
        metadata.afterFailuresRecorded(() -> done.accept(status));
    }

    private long userRequests() {
        IoCounters c = counters();
        return c.reads() + c.writes() + c.discards() + c.flushes();
    }

    /* ---- Management (mdadm --manage) ---- */

    /** {@code mdadm --fail}: refused for the last in-sync copy of some data and on levels without redundancy. */
    public void fail(String member) {
        if (members.fail(member)) {
            events.publish(name -> new EngineEvent.MemberFailed(name, member, MemberSet.FAILED_BY_REQUEST, true));
        }
        wakeDaemon();
    }

    /**
     * md's write-mostly flag ({@code mdadm --write-mostly}, sysfs {@code dev-X/state}): raid1 reads
     * avoid the member while another in-sync copy can serve them. Other levels keep the flag and
     * ignore it, as md does.
     */
    public void writeMostly(String member, boolean on) {
        members.writeMostly(member, on);
    }

    /** Whether {@code device} was write-mostly when it last left this array, since the array started. */
    public boolean leftWriteMostly(String device) {
        return members.leftWriteMostly(device);
    }

    /** {@code mdadm --remove}: only failed members and spares; an in-sync member must be failed first. */
    public void remove(String member) {
        members.remove(member);
    }

    /**
     * Whether {@code device} passes every check {@link #add} and {@link #replace} make of a joiner
     * (redundancy, active array, not built on this array, block size, size): what a page may offer.
     */
    public boolean canJoin(BlockDevice device) {
        return MemberAdmission.mayJoin(this, device);
    }

    /** {@code mdadm --add}: a spare, rebuilt into an empty slot as soon as there is one. */
    public void add(BlockDevice device) {
        MemberAdmission.checkJoiner(this, device);
        members.addSpare(device);
        wakeDaemon();
    }

    /** {@code mdadm --replace member --with device}: rebuilds {@code device} beside an in-sync member, then retires it. */
    public void replace(String member, BlockDevice with) {
        MemberAdmission.checkJoiner(this, with);
        members.replace(member, with);
        wakeDaemon();
    }

    /**
     * {@code mdadm --re-add}: a former member returns to its old slot. Without metadata the slot
     * is the one it left since the array started, and it is rebuilt in full. With metadata its
     * superblock says which slot it filled; it is rebuilt through the write-intent bitmap when the
     * bitmap still holds every write it missed, else in full; a device whose superblock does not
     * place it in an empty slot of this array is refused (add it as a spare instead).
     *
     * @return how it is rebuilt: {@code "bitmap"} or {@code "full"}
     */
    public String reAdd(BlockDevice device) {
        MemberAdmission.checkJoiner(this, device);
        if (!spec.metadata().present()) {
            members.reAdd(device);
            wakeDaemon();
            return "full";
        }
        MemberAdmission.ReAdd to = MemberAdmission.reAdd(this, device);
        members.reAdd(device, to.slot(), to.number(), to.placement(), to.throughBitmap(), to.writeMostly());
        wakeDaemon();
        return to.throughBitmap() ? "bitmap" : "full";
    }

    /**
     * Reassembly: a member stored as failed comes back attached and faulty, as it was before the
     * stop ({@code mdadm --assemble} of a superblock that marks it faulty).
     */
    public void attachFaulty(BlockDevice device, int formerSlot, String reason) {
        MemberAdmission.checkJoiner(this, device);
        members.attachFaulty(device, formerSlot, reason);
    }

    /** Reassembly: {@code device} was removed from slot {@code slot} before the stop; {@link #reAdd} puts it back there. */
    public void rememberFormerSlot(String device, int slot) {
        members.rememberFormerSlot(device, slot);
    }

    /**
     * md's {@code sync_action} and friends: {@code check}, {@code repair}, {@code idle} (ends a
     * check or repair), {@code pause} ({@code frozen}) and {@code resume}.
     */
    public void sync(String action) {
        SyncDaemon d = requireDaemon();
        switch (action == null ? "" : action.toLowerCase(Locale.ROOT)) {
            case "check" -> d.request(SyncAction.CHECK, inactiveReason());
            case "repair" -> d.request(SyncAction.REPAIR, inactiveReason());
            case "idle" -> d.abortScrub();
            case "pause", "frozen" -> d.pause();
            case "resume" -> d.resume();
            default -> throw new MdArgumentException("action", "unknown sync action '" + action + "' (check, repair, idle, pause, resume)");
        }
    }

    /** Sets the resync/recovery speed limits; they apply from the next window. */
    public void speedLimits(SpeedLimits limits) {
        requireDaemon().limits(Objects.requireNonNull(limits, "limits"));
    }

    private SyncDaemon requireDaemon() {
        if (daemon == null) {
            throw new MdStateException("action", spec.level().label() + " has no redundancy and nothing to sync");
        }
        return daemon;
    }

    /**
     * Stops the array ({@code mdadm --stop}): the daemon ends, all further I/O fails, and the
     * superblocks record the array clean once the writes in flight have ended.
     */
    public void stop() {
        stopReason = "stopped";
        if (daemon != null) {
            daemon.stop();
        }
        metadata.stop();
    }

    /**
     * Stops the array as a process kill would leave its members: no further I/O, and nothing more
     * written, not even the clean round. For crash tests.
     */
    void kill() {
        stopReason = "killed";
        if (daemon != null) {
            daemon.stop();
        }
        if (metadata instanceof MemberSuperblocks s) {
            s.kill();
        }
    }

    /**
     * Sets who is told when the array changes on its own, outside any management call: a member
     * failed on an I/O error, the daemon took a spare into a slot, a rebuild finished (a
     * replacement taking over its slot included), the initial resync finished. That is what a
     * keeper of the configuration must write down (md rewrites its superblocks at these points).
     * The listener runs on an I/O completion or the daemon's thread, holding no array lock; it
     * must return quickly and must not block (hand the work to another thread). Changes made by
     * the management calls themselves ({@link #fail}, {@link #add}, ...) are not reported.
     */
    public void onChange(Runnable listener) {
        events.onChange(listener);
    }

    /**
     * Sets who is told everything that happens to the array as {@link EngineEvent}s: member
     * failures (by request or I/O error), member changes the array makes on its own, and the
     * sync daemon's start, progress (at most once a second) and end. Same threading rules as
     * {@link #onChange}.
     */
    public void listen(EngineListener l) {
        events.listen(l);
    }

    private void wakeDaemon() {
        if (daemon != null) {
            daemon.wake();
        }
    }

    /**
     * raid4/5/6: sets the stripe cache's size in stripe heads (md's {@code stripe_cache_size});
     * idle heads beyond it are dropped.
     */
    public void stripeCacheSize(int heads) {
        if (!(personality instanceof Raid5 r5)) {
            throw new MdStateException("stripeCacheSize", spec.level().label() + " has no stripe cache");
        }
        r5.stripeCacheSize(heads);
    }

    /**
     * raid4/5/6: who computes full-stripe parity, a stripe worker (the default) or the thread that
     * runs the stripe head (md's {@code group_thread_cnt} is the nearest knob).
     */
    public void parityThreads(ParityThreads threads) {
        if (!(personality instanceof Raid5 r5)) {
            throw new MdStateException("parityThreads", spec.level().label() + " has no stripe cache");
        }
        r5.parityThreads(threads);
    }

    /* ---- Status ---- */

    /** raid4/5/6's stripe cache and parity counters; null for the other levels. */
    public ParityStatus parityStatus() {
        return personality instanceof Raid5 r5 ? ParityStatus.of(r5) : null;
    }

    /** {@code mdadm --detail}. */
    public MdDetail detail() {
        return MdDetail.of(this);
    }

    public MdArraySpec spec() {
        return spec;
    }

    /**
     * True while the initial resync of a new array has not finished: its copies may still
     * disagree above the resync point (an array assembled again later must resync again).
     */
    public boolean resyncPending() {
        return personality instanceof Redundancy r && r.syncedTo() != Long.MAX_VALUE;
    }

    /** Why the array serves no I/O, or null if it does. */
    public String inactiveReason() {
        String lost = members.lostReason();
        return lost != null ? lost : stopReason;
    }

    /** True while writes arrived within the last safe-mode interval (md's "active" vs "clean"). */
    synchronized boolean recentlyWritten() {
        long writes = counters().writes();
        long now = System.nanoTime();
        if (writes != writesSeen) {
            writesSeen = writes;
            writesChangedNanos = now;
            return true;
        }
        return now - writesChangedNanos < SAFE_MODE_NANOS;
    }

    MemberSet members() {
        return members;
    }

    Personality personality() {
        return personality;
    }

    SyncDaemon daemon() {
        return daemon;
    }

    ArrayMetadata metadata() {
        return metadata;
    }

    /** Where joining members' data starts (md's data_offset); 0 without metadata. */
    long dataOffset() {
        return dataOffset;
    }
}
