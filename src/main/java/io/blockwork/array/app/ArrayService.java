package io.blockwork.array.app;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdArrays;
import io.blockwork.engine.md.MdDetail;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.MdStateException;
import io.blockwork.engine.md.MemberState;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.md.metadata.MetadataSpec;
import io.blockwork.array.store.ArrayMemberEntity;
import io.blockwork.array.store.ArrayEntity;
import io.blockwork.array.store.ArrayRepository;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.consistency.EngineChanges;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.consistency.Records;
import io.blockwork.shared.device.Claim;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.ForcedRemoval;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Service;

/**
 * md arrays: create, inspect, delete, and mdadm's management (add, replace, fail, remove, re-add,
 * sync actions, speed limits); {@link ArrayAssemblyService} assembles them from their members.
 * Every change is a {@link ManagementOperations} operation: the
 * engine object is built or changed first (it checks everything and changes nothing when it
 * refuses), its undo recorded, then the rows are written from the engine's new state.
 *
 * <p>An array is a block device in the {@link DeviceRegistry} (kind "array") and owns each of its
 * members (a {@link Holder} of kind "array", {@link #MEMBER_CLAIM}), so a member cannot be deleted,
 * exported, mapped, written or used by another array while it belongs to this one; the rows keep
 * that rule too (a device name is unique among members).
 *
 * <p>Some engine changes cannot be taken back (a failed member stays failed, a removed faulty
 * member is gone). For those, a rollback asks the {@link ArrayChangeRecorder} to write the
 * engine's state down instead, so the database catches up with the engine.
 *
 * <p>Size note: over 400 lines because it has one short operation per mdadm verb (create, add,
 * replace, fail, remove, re-add, sync actions, speed limits, delete), sharing the lookups, undo
 * and record helpers at its end; a class per verb would copy those. Every operation follows the
 * same steps (engine first with its undo, then the registry's claims, then the rows from the
 * engine's state). Assembly, which builds arrays from their members instead, lives in
 * {@link ArrayAssemblyService}.
 */
@Service
public class ArrayService {

    /** The {@link Holder#kind()} of an array's claim on its members. */
    public static final String HOLDER_KIND = DeviceKind.ARRAY.label();
    /**
     * An array owns its members: nothing else may hold or write one, except a writer that asks
     * for raw access (damaging one member on purpose is how {@code check} and {@code repair} are tested).
     */
    static final Claim MEMBER_CLAIM = Claim.OWNER_ALLOWING_RAW;

    private final ArrayRepository repository;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final ForcedRemoval forcedRemoval;
    private final MdArrays arrays;
    private final ArrayChangeRecorder recorder;
    private final NodeScope nodes;

    public ArrayService(ArrayRepository repository, DeviceRegistry registry, ManagementOperations management,
                        ForcedRemoval forcedRemoval, MdArrays arrays, ArrayChangeRecorder recorder, NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.registry = registry;
        this.management = management;
        this.forcedRemoval = forcedRemoval;
        this.arrays = arrays;
        this.recorder = recorder;
    }

    /* ---- create, read, delete ---- */

    /** {@code mdadm --create}, then {@code --add} of each spare. */
    public ArrayView create(ArrayCreate c) {
        DeviceNames.require(c.name(), "name");
        MdArraySpec spec = MdErrors.call(() -> MdArraySpec.parse(c.name(), c.level(), c.chunkBytes(), c.layout(),
                c.flushStrategy(), c.barrierStrategy()));
        SpeedLimits speed = speedLimits(c.speedMinBytes(), c.speedMaxBytes(), "speedLimits", SpeedLimits.DEFAULT);
        MetadataSpec metadata = c.metadataSpec(spec.level());
        MdArraySpec withCache = c.stripeCacheSize() == null ? spec
                : MdErrors.call(() -> spec.withStripeCacheSize(c.stripeCacheSize()));
        MdArraySpec withSpeed = MdErrors.call(() -> withCache.withSpeed(speed).withAssumeClean(c.assumeClean())
                .withMetadata(metadata));
        return management.apply(changes -> {
            registry.requireFree(c.name());
            Map<String, String> seen = new HashMap<>();
            for (int i = 0; i < c.members().size(); i++) {
                requireJoiner("members[" + i + "]", c.members().get(i), seen);
            }
            for (int i = 0; i < c.spares().size(); i++) {
                requireJoiner("spares[" + i + "]", c.spares().get(i), seen);
            }
            if (c.journal() != null) {
                requireJoiner("journal", c.journal(), seen);
            }
            MdArray array = MdErrors.call(() -> arrays.create(withSpeed, c.members(), c.journal()));
            changes.undoOnRollback(() -> arrays.stop(c.name()));
            // watched before the rows are written: a change in between is in the rows or queued after them
            recorder.watch(array);
            for (int i = 0; i < c.spares().size(); i++) {
                String spare = c.spares().get(i);
                MdErrors.run(() -> arrays.add(c.name(), spare), MdErrors.rename("device", "spares[" + i + "]"));
            }
            for (int i = 0; i < c.writeMostly().size(); i++) {
                String device = c.writeMostly().get(i);
                if (!seen.containsKey(device) || device.equals(c.journal())) {
                    throw ProblemException.invalid("writeMostly[" + i + "]", device + " is not one of the members or spares");
                }
                array.writeMostly(device, true);
            }
            registry.register(c.name(), DeviceKind.ARRAY, array);
            changes.undoOnRollback(() -> registry.unregister(c.name()));
            Holder holder = holder(c.name());
            for (String device : seen.keySet()) {
                claim(device, holder, changes);
            }
            ArrayEntity record = newRecord(array, speed);
            record.setJournalDevice(c.journal(), c.journal() == null ? null : kindOf(c.journal()));
            MemberRows.write(record, array, this::kindOf);
            return view(save(record));
        });
    }

    /** The row of a new array (created or assembled), from the live engine object. */
    ArrayEntity newRecord(MdArray array, SpeedLimits speed) {
        MdArraySpec spec = array.spec();
        MdDetail detail = array.detail();
        ArrayEntity record = new ArrayEntity(spec.name(), spec.level().label(), detail.raidDevices(),
                spec.chunkBytes(), spec.layoutCode(),
                detail.usedDevSizeBytes(), spec.strategies().flush().label(), spec.strategies().barrier().label(),
                array.resyncPending(), Instant.now().truncatedTo(ChronoUnit.MICROS));
        record.setSpeedLimits(speed.minKiBps(), speed.maxKiBps());
        record.setStripeCacheSize(spec.parity() == null ? null : spec.parity().stripeCacheSize());
        MdDetail.Metadata m = detail.metadata();
        record.setMetadata(m.format(), m.uuid(), m.bitmap() == null ? null : m.bitmap().chunkBytes());
        return record;
    }

    public List<ArrayView> list() {
        return repository.findAllByOrderByNameAsc().stream().map(this::view).toList();
    }

    public ArrayView get(String name) {
        return view(found(name));
    }

    /** /proc/mdstat over every assembled array. */
    public String mdstat() {
        return arrays.mdstat();
    }

    /**
     * {@code mdadm --stop} and forget: refused while anything holds the array, unless
     * {@code force} and every holder may be dropped with it (exports). The members are free again
     * after the commit; the array's daemon stops then.
     */
    public void delete(String name, boolean force) {
        management.run(changes -> {
            ArrayEntity record = record(name);
            if (force) {
                forcedRemoval.dropHolders(name, changes);
            }
            RegisteredDevice entry = registry.unregister(name);
            changes.undoOnRollback(() -> registry.reinstate(entry));
            Holder holder = holder(name);
            for (ArrayMemberEntity m : record.getMembers()) {
                release(m.getDeviceName(), holder, changes);
            }
            if (record.getJournalDevice() != null) {
                release(record.getJournalDevice(), holder, changes);
            }
            repository.delete(record);
            repository.flush();
            changes.afterCommit(() -> arrays.get(name).filter(a -> a == entry.device())
                    .ifPresent(a -> arrays.stop(name)));
        });
    }

    /* ---- members ---- */

    /**
     * {@code mdadm --add} (role {@code spare}, the default) or {@code mdadm --replace replaces
     * --with device} (role {@code replacement}).
     */
    public ArrayView addMember(String name, String device, String role, String replaces) {
        return management.apply(changes -> {
            ArrayEntity record = record(name);
            MdArray array = live(name);
            String r = role == null ? "spare" : role.toLowerCase(Locale.ROOT);
            if (!r.equals("spare") && !r.equals("replacement")) {
                throw ProblemException.invalid("role", "role must be spare or replacement, not '" + role + "'");
            }
            if (r.equals("replacement") && (replaces == null || replaces.isBlank())) {
                throw ProblemException.invalid("replaces", "a replacement needs the in-sync member it replaces");
            }
            requireJoiner("device", device, new HashMap<>());
            if (r.equals("spare")) {
                MdErrors.run(() -> arrays.add(name, device));
            } else {
                MdErrors.run(() -> arrays.replace(name, replaces, device), MdErrors.rename("member", "replaces"));
            }
            return joined(record, array, device, changes);
        });
    }

    /** {@code mdadm --fail}; failing a member that is already faulty (or missing) changes nothing. */
    public ArrayView failMember(String name, String member) {
        return management.apply(changes -> {
            ArrayEntity record = record(name);
            MdArray array = live(name);
            requireMember(record, array, member);
            if (MemberRows.attached(array, member)) {
                MdErrors.run(() -> array.fail(member));
                changes.undoOnRollback(() -> recorder.request(name));
            }
            return write(record, array);
        });
    }

    /**
     * {@code mdadm --remove}: a spare or a failed member leaves the array and is free again; an
     * in-sync or rebuilding member must be failed first (409 naming {@code member}).
     */
    public ArrayView removeMember(String name, String member) {
        return management.apply(changes -> {
            ArrayEntity record = record(name);
            MdArray array = live(name);
            ArrayMemberEntity row = requireMember(record, array, member);
            if (MemberRows.attached(array, member)) {
                MemberState before = memberState(array, member);
                MdErrors.run(() -> array.remove(member));
                if (before == MemberState.SPARE) {
                    RegisteredDevice d = registry.require(member);
                    changes.undoOnRollback(() -> array.add(d.device()));
                } else {
                    changes.undoOnRollback(() -> recorder.request(name));
                }
            }
            release(member, holder(name), changes);
            if (row != null) {
                if (row.getSlot() != null && !MemberRows.SPARE.equals(row.getState())) {
                    // md keeps this in the device's superblock: re-add puts it back there, after a restart too
                    record.getFormerSlots().put(member, row.getSlot());
                }
                record.removeMember(row);
            }
            return write(record, array);
        });
    }

    /**
     * {@code mdadm --re-add}: a former member goes back into its old slot. With metadata its
     * superblock says which, and it is rebuilt only in the chunks the write-intent bitmap marks
     * when the bitmap still holds every write it missed (else in full); a device whose superblock
     * does not place it (none, another array's, a taken slot) comes back as a spare. Without
     * metadata: a removed device goes back into its old slot (the slot is stored, so this works
     * across restarts; a failed member must be removed first, as in md), one the array lost at the
     * last start comes back as a spare, rebuilt in full either way.
     */
    public ArrayView reAddMember(String name, String member) {
        return management.apply(changes -> {
            ArrayEntity record = record(name);
            MdArray array = live(name);
            ArrayMemberEntity row = record.member(member).orElse(null);
            boolean detached = row != null && !MemberRows.attached(array, member);
            RegisteredDevice device = registry.find(member).orElseThrow(() -> ProblemException.notFound("block device", member));
            if (!device.live()) {
                throw new ProblemException(Problem.CONFLICT, device.kind().label() + " " + member + " is not active ("
                        + device.state().reason() + ")").atField("member");
            }
            List<Holder> others = device.holders().stream().filter(h -> !h.equals(holder(name))).toList();
            if (!others.isEmpty()) {
                throw busy(device, others).atField("member");
            }
            // the flag it left with: its row while the array lost it at the last start, else the
            // engine's memory of a member removed since (the remove deleted the row)
            boolean writeMostly = row != null ? row.isWriteMostly() : array.leftWriteMostly(member);
            boolean asSpare = false;
            if (array.spec().metadata().present()) {
                try {
                    arrays.reAdd(name, member);
                } catch (MdStateException e) {
                    // its superblock does not place it back (blank, as a restarted memory server's
                    // export is, or another array's): a spare, rebuilt in full (mdadm --add)
                    MdErrors.run(() -> arrays.add(name, member), MdErrors.rename("device", "member"));
                    asSpare = true;
                }
            } else if (detached) {
                MdErrors.run(() -> arrays.add(name, member), MdErrors.rename("device", "member"));
                asSpare = true;
            } else {
                MdErrors.run(() -> arrays.reAdd(name, member), MdErrors.rename("device", "member"));
            }
            if (asSpare && writeMostly) {
                // md's add makes a plain spare; a re-add of a write-mostly leg keeps the flag
                array.writeMostly(member, true);
            }
            return joined(record, array, member, changes);
        });
    }

    /**
     * md's write-mostly flag of a member ({@code mdadm --write-mostly}, sysfs {@code state}):
     * raid1 reads avoid the member while another in-sync copy can serve them. Stored, so a
     * restart keeps it.
     */
    public ArrayView writeMostly(String name, String member, boolean on) {
        return management.apply(changes -> {
            ArrayEntity record = record(name);
            MdArray array = live(name);
            requireMember(record, array, member);
            if (!MemberRows.attached(array, member)) {
                throw new ProblemException(Problem.CONFLICT, member + " is not attached to " + name
                        + " (failed or missing at the last start); re-add it first").atField("member");
            }
            boolean before = array.detail().members().stream().filter(m -> member.equals(m.device())).findFirst()
                    .map(MdDetail.MemberDetail::writeMostly).orElse(false);
            MdErrors.run(() -> array.writeMostly(member, on));
            changes.undoOnRollback(() -> array.writeMostly(member, before));
            return write(record, array);
        });
    }

    /* ---- sync ---- */

    /** md's sync_action: check, repair, idle, pause (frozen), resume. Not stored: a restart forgets a check. */
    public ArrayView sync(String name, String action) {
        return management.apply(changes -> {
            ArrayEntity record = record(name);
            MdArray array = live(name);
            MdErrors.run(() -> array.sync(action));
            return view(record);
        });
    }

    /** Sets and stores the resync/recovery speed limits (bytes per second; null keeps a limit as it is). */
    public ArrayView speedLimits(String name, Long minBytes, Long maxBytes) {
        return management.apply(changes -> {
            ArrayEntity record = record(name);
            MdLevel level = MdLevel.fromLabel(record.getLevel());
            if (!level.redundant()) {
                throw new ProblemException(Problem.NOT_SUPPORTED, level.label() + " has no redundancy, so nothing to"
                        + " resync or rebuild and no speed limits");
            }
            SpeedLimits old = new SpeedLimits(record.getSpeedMinKiBps(), record.getSpeedMaxKiBps());
            SpeedLimits limits = speedLimits(minBytes, maxBytes, null, old);
            MdArray array = arrays.get(name).filter(a -> registry.find(name).map(e -> e.device() == a).orElse(false))
                    .orElse(null);
            if (array != null) {
                SpeedLimits before = array.detail().speed();
                MdErrors.run(() -> array.speedLimits(limits));
                changes.undoOnRollback(() -> array.speedLimits(before));
            }
            record.setSpeedLimits(limits.minKiBps(), limits.maxKiBps());
            return view(save(record));
        });
    }

    /* ---- shutdown ---- */

    /**
     * Stops every array when the service stops, before the disks close (the context-closed event
     * comes before any bean is destroyed): first the recorder, so nothing the shutdown causes is
     * written down as a member failure, then the daemons.
     */
    @EventListener(ContextClosedEvent.class)
    void stopAll() {
        recorder.close();
        for (MdArray a : arrays.list()) {
            arrays.stop(a.name());
            if (a.spec().level().parity()) {
                markClean(a);
            }
        }
    }

    /**
     * After a parity array stopped: its members' caches are flushed and its row says it stopped
     * cleanly, so the next start trusts its parity (md writes a clean superblock at stop).
     */
    private void markClean(MdArray array) {
        try {
            for (var member : array.lowerDevices()) {
                SyncIo.flush(member);
            }
            management.run(changes -> repository.findByName(array.name()).ifPresent(r -> {
                r.setDirty(false);
                repository.saveAndFlush(r);
            }));
        } catch (RuntimeException e) {
            // Left dirty: the next start resyncs, which is safe.
            System.getLogger(ArrayService.class.getName()).log(System.Logger.Level.WARNING,
                    "could not record the clean stop of " + array.name(), e);
        }
    }

    /* ---- helpers ---- */

    /**
     * A device may join an array if it is live and nothing holds it; {@code seen} catches a device
     * listed twice in one request (maps name to the field that listed it first).
     */
    void requireJoiner(String field, String device, Map<String, String> seen) {
        if (device == null || device.isBlank()) {
            throw ProblemException.invalid(field, "a device name is required");
        }
        String first = seen.putIfAbsent(device, field);
        if (first != null) {
            throw ProblemException.invalid(field, device + " is listed twice (also " + first + ")");
        }
        RegisteredDevice entry = registry.find(device)
                .orElseThrow(() -> ProblemException.invalid(field, "no block device named '" + device + "'"));
        if (!entry.live()) {
            throw new ProblemException(Problem.CONFLICT, entry.kind().label() + " " + device + " is not active ("
                    + entry.state().reason() + "), so it cannot join an array").atField(field);
        }
        if (!entry.holders().isEmpty()) {
            throw busy(entry, List.copyOf(entry.holders())).atField(field);
        }
    }

    private static ProblemException busy(RegisteredDevice entry, List<Holder> holders) {
        List<String> names = holders.stream().map(Holder::toString).sorted().toList();
        return new ProblemException(Problem.DEVICE_BUSY, entry.kind().label() + " " + entry.name()
                + " is in use by " + String.join(", ", names) + ", so it cannot join an array")
                .with("holders", names);
    }

    /** The stored member, or not-found; also accepts a member the engine has and the rows do not (yet). */
    private static ArrayMemberEntity requireMember(ArrayEntity record, MdArray array, String member) {
        ArrayMemberEntity row = record.member(member).orElse(null);
        if (row == null && !MemberRows.attached(array, member)) {
            throw ProblemException.notFound("member of array " + record.getName(), member);
        }
        return row;
    }

    private static MemberState memberState(MdArray array, String member) {
        return array.detail().members().stream().filter(m -> member.equals(m.device())).findFirst()
                .map(MdDetail.MemberDetail::state).orElse(MemberState.REMOVED);
    }

    /** Undo of an addition: a spare is removed; a member already rebuilding is failed first. */
    private static void detach(MdArray array, String device) {
        MemberState state = memberState(array, device);
        if (state == MemberState.IN_SYNC || state == MemberState.REBUILDING) {
            array.fail(device);
        }
        if (state != MemberState.REMOVED) {
            array.remove(device);
        }
    }

    /** After {@code device} joined the live array: the undo, the array's claim on it, the rows. */
    private ArrayView joined(ArrayEntity record, MdArray array, String device, EngineChanges changes) {
        changes.undoOnRollback(() -> detach(array, device));
        claim(device, holder(record.getName()), changes);
        record.getFormerSlots().remove(device);
        return write(record, array);
    }

    void claim(String device, Holder holder, EngineChanges changes) {
        registry.claim(device, holder, MEMBER_CLAIM);
        changes.undoOnRollback(() -> registry.release(device, holder));
    }

    private void release(String device, Holder holder, EngineChanges changes) {
        boolean held = registry.find(device).map(e -> e.holders().contains(holder)).orElse(false);
        if (held) {
            registry.release(device, holder);
            changes.undoOnRollback(() -> registry.claim(device, holder, MEMBER_CLAIM));
        }
    }

    private ArrayView write(ArrayEntity record, MdArray array) {
        MemberRows.write(record, array, this::kindOf);
        return view(save(record));
    }

    /** The live array of {@code name}; conflict if it is configured but not assembled. */
    MdArray live(String name) {
        RegisteredDevice entry = registry.find(name).orElse(null);
        MdArray array = arrays.get(name).orElse(null);
        if (array == null || entry == null || entry.device() != array) {
            String reason = entry == null ? "not registered" : entry.state().reason();
            throw new ProblemException(Problem.CONFLICT, "array " + name + " is not active (" + reason + ")");
        }
        return array;
    }

    static Holder holder(String arrayName) {
        return new Holder(HOLDER_KIND, arrayName);
    }

    String kindOf(String device) {
        return kindOf(registry, device);
    }

    static String kindOf(DeviceRegistry registry, String device) {
        return registry.find(device).map(e -> e.kind().label()).orElse(DeviceKind.DISK.label());
    }

    /**
     * Speed limits from bytes per second (null: keep {@code current}'s). md counts in KiB/s, so
     * bytes are rounded down to KiB; errors name {@code prefix.min} / {@code prefix.max}.
     */
    static SpeedLimits speedLimits(Long minBytes, Long maxBytes, String prefix, SpeedLimits current) {
        String p = prefix == null ? "" : prefix + ".";
        long min = minBytes == null ? current.minKiBps() : kib(minBytes, p + "min");
        long max = maxBytes == null ? current.maxKiBps() : kib(maxBytes, p + "max");
        if (maxBytes == null && max < min) {
            max = min;
        }
        long finalMax = max;
        return MdErrors.call(() -> new SpeedLimits(min, finalMax),
                f -> f.equals("speed.min") ? p + "min" : f.equals("speed.max") ? p + "max" : f);
    }

    private static long kib(long bytes, String field) {
        if (bytes < 1024) {
            throw ProblemException.invalid(field, "a speed limit is at least 1KiB (1024 bytes) per second, got " + bytes);
        }
        return Math.min(bytes / 1024, SpeedLimits.UNLIMITED.maxKiBps());
    }

    ArrayEntity save(ArrayEntity record) {
        return Records.save(repository, record, "array " + record.getName());
    }

    /** The array's row, for a change: this node's arrays only (409 other-node naming the owner). */
    private ArrayEntity record(String name) {
        return nodes.requireLocal(found(name), "array " + name);
    }

    private ArrayEntity found(String name) {
        return repository.findByName(name).orElseThrow(() -> ProblemException.notFound("array", name));
    }

    /* ---- views ---- */

    ArrayView view(ArrayEntity r) {
        boolean local = nodes.isLocal(r);
        RegisteredDevice entry = local ? registry.find(r.getName()).orElse(null) : null;
        MdArray array = arrays.get(r.getName()).filter(a -> entry != null && entry.device() == a).orElse(null);
        ObjectState state = !local ? ObjectState.onNode(r.getNode())
                : entry == null ? ObjectState.failed("not registered") : entry.state();
        return ArrayView.of(r, state, array, array == null ? List.of() : joinCandidates(array));
    }

    /** What a page may offer as a spare or replacement: what {@link #requireJoiner} and the engine would accept. */
    private List<String> joinCandidates(MdArray array) {
        return registry.list().stream()
                .filter(e -> e.live() && e.holders().isEmpty() && array.canJoin(e.device()))
                .map(RegisteredDevice::name).sorted().toList();
    }
}
