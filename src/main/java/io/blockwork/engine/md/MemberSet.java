package io.blockwork.engine.md;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.md.metadata.MdUuid;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The members of one array and every change to them (md's {@code conf} plus the management half of
 * md.c): failing, removing, adding spares and replacements, re-adding, and the daemon's hand-over
 * of spares into empty slots.
 *
 * <p>Concurrency: the I/O path reads {@link #table()}, an immutable picture of the slots published
 * through a volatile field, and each member's volatile state; it never locks. Every change happens
 * under {@link #lock} and republishes the table. {@link #failed} is called from I/O completions,
 * so nothing under the lock blocks or submits I/O.
 *
 * <p>Size note: over 400 lines because every change to the members goes through one lock and republishes
 * one table; the operations share its helpers (take out, find, refuse a member twice), and the faulty
 * members and former slots kept across restarts belong to that one picture.
 *
 * <p>Every change bumps {@link #changes}, and a failure also {@link #failures}, before the new
 * table is published: whoever reads a table without a failed member also sees the failure count
 * that says it is not yet recorded in the superblocks ({@link ArrayMetadata} holds writes until it is).
 */
final class MemberSet {

    static final String FAILED_BY_REQUEST = "failed by request";

    /** Where a device joining the array keeps its data, and the uuid its superblock will carry. */
    record Placement(long dataOffset, MdUuid uuid) {
        static final Placement NONE = new Placement(0, null);
    }

    /**
     * The slots as the I/O path sees them: {@code slots[i]} is the member filling raid slot
     * {@code i} (null if empty), {@code replacements[i]} one rebuilding beside it. Never mutated.
     */
    record Table(Member[] slots, Member[] replacements) {
        int width() {
            return slots.length;
        }
    }

    private final MdLevel level;
    private final Object lock = new Object();
    private volatile Table table;
    @GuardedBy("lock")
    private final List<Member> spares = new ArrayList<>();
    /** Failed members still attached, until removed. */
    @GuardedBy("lock")
    private final List<Member> faulty = new ArrayList<>();
    /**
     * Guarded by {@link #lock}: the slot each departed device last filled, by device name, for
     * re-add (names, so that a removed device is not kept alive by the array).
     */
    private final Map<String, Integer> formerSlots = new HashMap<>();
    /** Guarded by {@link #lock}: departed devices that were write-mostly, which a re-add keeps (md's rdev flag). */
    private final java.util.Set<String> formerWriteMostly = new java.util.HashSet<>();
    @GuardedBy("lock")
    private int nextNumber;
    /** Non-null once some data has no readable copy left: the array is inactive for good. */
    private volatile String lostReason;
    private Predicate<Table> survives = t -> true;
    /** Told after a member fails on an I/O error, outside the lock (the array wakes its daemon). */
    private volatile Consumer<Member> onFailure = m -> {};
    /** Told after any change, outside the lock (the array's superblocks record it). */
    private volatile Runnable onChange = () -> {};
    /** Where joining devices are placed. */
    private volatile Function<BlockDevice, Placement> placement = d -> Placement.NONE;
    /** Member failures so far; bumped before the table without the member is published. */
    private volatile long failures;
    /** Changes of any kind so far; bumped before the changed table is published. */
    private volatile long changes;

    MemberSet(MdLevel level, List<? extends BlockDevice> slotDevices) {
        this(level, inSync(slotDevices), new Member[slotDevices.size()], List.of(), slotDevices.size());
    }

    /** Members already placed (assembly): slots and replacements by slot, spares, the next free number. */
    MemberSet(MdLevel level, Member[] slots, Member[] replacements, List<Member> spareMembers, int nextNumber) {
        this.level = level;
        this.table = new Table(slots.clone(), replacements.clone());
        this.spares.addAll(spareMembers);
        this.nextNumber = nextNumber;
    }

    private static Member[] inSync(List<? extends BlockDevice> devices) {
        Member[] slots = new Member[devices.size()];
        for (int i = 0; i < slots.length; i++) {
            BlockDevice d = devices.get(i);
            slots[i] = d == null ? null : new Member(d, i, MemberState.IN_SYNC, i);
        }
        return slots;
    }

    /** Installs the personality's survival rule and records whether the members start with all data. */
    void survivalRule(Predicate<Table> rule) {
        this.survives = rule;
        if (!rule.test(table)) {
            StringBuilder missing = new StringBuilder();
            for (int i = 0; i < table.width(); i++) {
                if (table.slots()[i] == null) {
                    missing.append(missing.isEmpty() ? "" : ", ").append(i);
                }
            }
            lostReason = "not enough members to assemble: slot(s) " + missing + " missing";
        }
    }

    void onFailure(Consumer<Member> listener) {
        this.onFailure = listener;
    }

    void onChange(Runnable listener) {
        this.onChange = listener;
    }

    void placement(Function<BlockDevice, Placement> rule) {
        this.placement = rule;
    }

    long failures() {
        return failures;
    }

    long changes() {
        return changes;
    }

    /** Caller holds the lock: a change is about to be published. */
    private void changing(boolean failure) {
        if (failure) {
            failures++;
        }
        changes++;
    }

    Table table() {
        return table;
    }

    /** Non-null when the array has lost data and serves no I/O. */
    String lostReason() {
        return lostReason;
    }

    /* ---- Failures ---- */

    /**
     * Marks {@code m} faulty after an I/O error (md_error). Returns true if every block is still
     * readable afterwards. Never blocks; safe from completion callbacks.
     */
    boolean failed(Member m, String reason) {
        boolean changed = false;
        synchronized (lock) {
            if (m.state() != MemberState.FAULTY && m.state() != MemberState.REMOVED) {
                changing(true);
                takeOut(m);
                m.faulty(reason);
                faulty.add(m);
                changed = true;
                if (lostReason == null && !survives.test(table)) {
                    lostReason = "data lost: " + m.name() + " failed (" + reason + ") and no other copy of its data is in sync";
                }
            }
        }
        if (changed) {
            onFailure.accept(m);
            onChange.run();
        }
        return lostReason == null;
    }

    /**
     * mdadm --fail: refused if it would leave some data without an in-sync copy. Returns false if
     * the member was faulty already.
     */
    boolean fail(String name) {
        synchronized (lock) {
            Member m = find(name);
            if (m.state() == MemberState.FAULTY) {
                return false;
            }
            if (!level.redundant()) {
                throw new MdStateException("member", level.label() + " has no redundancy; failing " + name + " would stop the array");
            }
            Table after = without(table, m);
            if (m.state() == MemberState.IN_SYNC && !m.replacement() && !survives.test(after)) {
                throw new MdStateException("member", name + " holds the last in-sync copy of some data; failing it would lose data");
            }
            changing(true);
            takeOut(m);
            m.faulty(FAILED_BY_REQUEST);
            faulty.add(m);
        }
        onChange.run();
        return true;
    }

    /** mdadm --remove: only spares and failed members may leave. */
    void remove(String name) {
        synchronized (lock) {
            Member m = find(name);
            switch (m.state()) {
                case FAULTY -> faulty.remove(m);
                case SPARE -> spares.remove(m);
                default -> throw new MdStateException("member", name + " is " + m.state().label()
                        + "; only failed members and spares can be removed (fail it first)");
            }
            changing(false);
            m.detach();
        }
        onChange.run();
    }

    /** Clears {@code m} from whatever slot or list holds it. */
    @GuardedBy("lock")
    private void takeOut(Member m) {
        Table t = table;
        Member[] slots = t.slots().clone();
        Member[] repl = t.replacements().clone();
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] == m) {
                // A replacement being rebuilt for this slot takes it over, still rebuilding (as in md).
                slots[i] = repl[i];
                repl[i] = null;
                if (slots[i] != null) {
                    slots[i].promote();
                }
                formerSlots.put(m.name(), i);
                if (m.writeMostly()) {
                    formerWriteMostly.add(m.name());
                } else {
                    formerWriteMostly.remove(m.name());
                }
            }
            if (repl[i] == m) {
                repl[i] = null;
            }
        }
        spares.remove(m);
        table = new Table(slots, repl);
    }

    private static Table without(Table t, Member m) {
        Member[] slots = t.slots().clone();
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] == m) {
                slots[i] = null;
            }
        }
        return new Table(slots, t.replacements());
    }

    /* ---- Additions ---- */

    /** mdadm --add: a spare; the daemon moves it into an empty slot if there is one. */
    void addSpare(BlockDevice device) {
        synchronized (lock) {
            refuseMember(device);
            changing(false);
            spares.add(newMember(device, MemberState.SPARE));
        }
        onChange.run();
    }

    @GuardedBy("lock")
    private Member newMember(BlockDevice device, MemberState state) {
        Placement p = placement.apply(device);
        return new Member(device, nextNumber++, state, -1, p.dataOffset(), p.uuid());
    }

    /** mdadm --replace: rebuild {@code with} beside the in-sync member {@code name}, then retire it. */
    void replace(String name, BlockDevice with) {
        synchronized (lock) {
            Member old = find(name);
            if (old.state() != MemberState.IN_SYNC || old.slot() < 0 || old.replacement()) {
                throw new MdStateException("member", name + " is " + old.state().label() + "; only an in-sync member can be replaced");
            }
            int slot = old.slot();
            if (table.replacements()[slot] != null) {
                throw new MdStateException("member", name + " is already being replaced by " + table.replacements()[slot].name());
            }
            refuseMember(with);
            Member m = newMember(with, MemberState.SPARE);
            m.rebuildInto(slot, true);
            Member[] repl = table.replacements().clone();
            repl[slot] = m;
            changing(false);
            table = new Table(table.slots(), repl);
        }
        onChange.run();
    }

    /**
     * mdadm --re-add without metadata: a device removed since the array started goes back to the
     * slot it left and is rebuilt in full.
     */
    void reAdd(BlockDevice device) {
        Integer slot;
        synchronized (lock) {
            slot = formerSlots.get(device.name());
        }
        if (slot == null) {
            throw new MdStateException("device", device.name() + " was never a member of this array; add it instead");
        }
        reAdd(device, slot, -1, Placement.NONE, false, false);
    }

    /**
     * A former member goes back into {@code slot}, rebuilt from the start; with
     * {@code throughBitmap} only the chunks the write-intent bitmap marks. It keeps
     * {@code number} (its superblock's dev_number) when that is free. It is write-mostly if it was
     * when it left, or if {@code writeMostly} (its superblock's flag).
     */
    Member reAdd(BlockDevice device, int slot, int number, Placement where, boolean throughBitmap, boolean writeMostly) {
        Member m;
        synchronized (lock) {
            refuseMember(device);
            if (slot < 0 || slot >= table.width()) {
                throw new MdStateException("device", device.name() + " last filled slot " + slot
                        + ", which this array does not have; add it as a spare instead");
            }
            if (table.slots()[slot] != null) {
                throw new MdStateException("device", "slot " + slot + " of " + device.name() + " is taken by "
                        + table.slots()[slot].name() + "; add it as a spare instead");
            }
            boolean free = number >= 0 && all().stream().noneMatch(x -> x.number() == number);
            m = new Member(device, free ? number : nextNumber++, MemberState.SPARE, -1, where.dataOffset(), where.uuid());
            nextNumber = Math.max(nextNumber, m.number() + 1);
            m.writeMostly(writeMostly || formerWriteMostly.contains(device.name()));
            m.rebuildInto(slot, false, 0, throughBitmap);
            Member[] slots = table.slots().clone();
            slots[slot] = m;
            changing(false);
            table = new Table(slots, table.replacements());
        }
        onChange.run();
        return m;
    }

    /**
     * Reassembly: a member that had failed before the array stopped comes back attached and
     * faulty, out of any slot, as it was (it shows as {@code (F)} in mdstat and can be removed, then
     * re-added into {@code formerSlot}).
     */
    void attachFaulty(BlockDevice device, int formerSlot, String reason) {
        synchronized (lock) {
            refuseMember(device);
            Member m = new Member(device, nextNumber++, MemberState.SPARE, -1);
            m.faulty(reason);
            faulty.add(m);
            rememberFormerSlot(device.name(), formerSlot);
        }
    }

    /** Reassembly: {@code device} left slot {@code slot} before the array stopped, so it may be re-added there. */
    void rememberFormerSlot(String device, int slot) {
        synchronized (lock) {
            if (slot >= 0 && slot < table.width()) {
                formerSlots.put(device, slot);
            }
        }
    }

    private void refuseMember(BlockDevice device) {
        if (contains(device)) {
            throw new MdStateException("device", device.name() + " is already a member of this array");
        }
    }

    /* ---- The daemon's side ---- */

    /**
     * The member to rebuild next: one already rebuilding, else a spare moved into the first empty
     * slot. Null if there is nothing to rebuild or the array has lost data.
     */
    Member nextToRebuild() {
        synchronized (lock) {
            if (lostReason != null || !level.redundant()) {
                return null;
            }
            Member m = rebuilding(table);
            int empty = emptySlot(table);
            if (m == null && empty >= 0 && !spares.isEmpty()) {
                m = spares.removeFirst();
                m.rebuildInto(empty, false);
                Member[] slots = table.slots().clone();
                slots[empty] = m;
                changing(false);
                table = new Table(slots, table.replacements());
            }
            return m;
        }
    }

    /** A member of {@code t} being rebuilt, in a slot or as a replacement; null if none. */
    private static Member rebuilding(Table t) {
        for (Member[] row : new Member[][] {t.slots(), t.replacements()}) {
            for (Member m : row) {
                if (m != null && m.state() == MemberState.REBUILDING) {
                    return m;
                }
            }
        }
        return null;
    }

    private static int emptySlot(Table t) {
        for (int i = 0; i < t.width(); i++) {
            if (t.slots()[i] == null) {
                return i;
            }
        }
        return -1;
    }

    /** True if {@link #nextToRebuild} would find work: a rebuilding member, or a spare for an empty slot. */
    boolean rebuildPending() {
        synchronized (lock) {
            return lostReason == null && level.redundant()
                    && (rebuilding(table) != null || (emptySlot(table) >= 0 && !spares.isEmpty()));
        }
    }

    /** A rebuild finished: the member is in sync; a replacement takes over its slot. */
    void rebuilt(Member m) {
        synchronized (lock) {
            if (m.state() != MemberState.REBUILDING) {
                return;
            }
            changing(false);
            int slot = m.slot();
            if (m.replacement()) {
                Member[] slots = table.slots().clone();
                Member[] repl = table.replacements().clone();
                Member old = slots[slot];
                slots[slot] = m;
                repl[slot] = null;
                table = new Table(slots, repl);
                if (old != null) {
                    formerSlots.put(old.name(), slot);
                    old.faulty("replaced by " + m.name());
                    faulty.add(old);
                }
            }
            m.inSync();
        }
        onChange.run();
    }

    /**
     * Sets or clears md's write-mostly flag of a member (sysfs {@code state}: writemostly /
     * -writemostly). A change counts as a member change, so the superblocks record it (their
     * dev_flags), as md updates them after the sysfs write.
     */
    void writeMostly(String name, boolean on) {
        synchronized (lock) {
            Member m = find(name);
            if (m.writeMostly() == on) {
                return;
            }
            m.writeMostly(on);
            changing(false);
        }
        onChange.run();
    }

    /** Whether {@code name} was write-mostly when it last left the array (since the array started). */
    boolean leftWriteMostly(String name) {
        synchronized (lock) {
            return formerWriteMostly.contains(name);
        }
    }

    /* ---- Queries ---- */

    @GuardedBy("lock")
    private Member find(String name) {
        for (Member m : all()) {
            if (m.name().equals(name)) {
                return m;
            }
        }
        throw new MdArgumentException("member", "no member named '" + name + "'");
    }

    boolean contains(BlockDevice device) {
        synchronized (lock) {
            return all().stream().anyMatch(m -> m.device() == device);
        }
    }

    /** Every attached member: slots, replacements, spares, failed; in number order. */
    List<Member> all() {
        synchronized (lock) {
            List<Member> out = new ArrayList<>();
            Table t = table;
            for (int i = 0; i < t.width(); i++) {
                if (t.slots()[i] != null) {
                    out.add(t.slots()[i]);
                }
                if (t.replacements()[i] != null) {
                    out.add(t.replacements()[i]);
                }
            }
            out.addAll(spares);
            out.addAll(faulty);
            out.sort((a, b) -> Integer.compare(a.number(), b.number()));
            return out;
        }
    }

    /**
     * True if some slot would still lack an in-sync member once {@code target} (rebuilding) is in
     * sync: the array stays degraded, so the bitmap must keep the chunks it rebuilds.
     */
    boolean degradedBesides(Member target) {
        Table t = table;
        for (int i = 0; i < t.width(); i++) {
            Member m = t.slots()[i];
            boolean covered = (m != null && m.state() == MemberState.IN_SYNC) || (m == target && i == target.slot());
            if (!covered) {
                return true;
            }
        }
        return false;
    }

    /** Slots without an in-sync member (md's {@code degraded}). */
    int degraded() {
        Table t = table;
        int n = 0;
        for (Member m : t.slots()) {
            if (m == null || m.state() != MemberState.IN_SYNC) {
                n++;
            }
        }
        return n;
    }
}
