package io.blockwork.array.app;

import io.blockwork.engine.md.BarrierStrategy;
import io.blockwork.engine.md.FlushStrategy;
import io.blockwork.engine.md.MdArgumentException;
import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArraySpec;
import io.blockwork.engine.md.MdArrays;
import io.blockwork.engine.md.MdAssembly;
import io.blockwork.engine.md.MdLevel;
import io.blockwork.engine.md.MdStateException;
import io.blockwork.engine.md.MdStrategies;
import io.blockwork.engine.md.ParityLayout;
import io.blockwork.engine.md.ParitySpec;
import io.blockwork.engine.md.Raid10Layout;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.md.metadata.Examination;
import io.blockwork.engine.md.metadata.MdUuid;
import io.blockwork.engine.md.metadata.MetadataSpec;
import io.blockwork.array.store.ArrayMemberEntity;
import io.blockwork.array.store.ArrayEntity;
import io.blockwork.array.store.ArrayRepository;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.assembly.Restorable;
import io.blockwork.shared.assembly.RestorableSource;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.problem.ProblemException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * Arrays at start-up ({@code mdadm --assemble}), after every device they have as a member. Those
 * are optional dependencies: a redundant array whose member is down comes up degraded, the
 * member stored as {@code missing} with the reason (it may have missed writes, so it never
 * returns to its slot by itself; re-add rebuilds it). An array that cannot serve I/O without its
 * missing members (raid0, linear, or a redundant one short of a copy) is not assembled: it fails
 * with the reason, and its rows stay as they were, so it assembles again once the members are back.
 *
 * <p>Arrays with metadata ({@code 1.2}): the rows only say which devices to look at; their
 * superblocks decide ({@link MdArrays#assemble(MdArraySpec, int, List, List)}): the freshest event
 * count wins, a stale member (one that failed just before a crash, before its row said so) goes
 * back into its slot and is rebuilt, through the bitmap when it allows, a rebuild carries on from
 * its recovery offset, and an array that was not clean resyncs its dirty chunks. A member whose
 * superblock is torn, corrupt or another array's is left out ({@code missing}, with the reason);
 * one whose superblock area is blank (a memory disk after a restart) is rebuilt as a spare. When
 * every member is blank the array is written new superblocks, as a re-create. A member whose row
 * says {@code faulty} (a failure that was acknowledged) is not assembled: it comes back attached
 * and faulty, as mdadm leaves a failed member out until it is re-added.
 *
 * <p>Arrays without metadata ({@code none}): what the rows say decides what comes back:
 * {@code in_sync} members fill their slots, {@code rebuilding} ones and spares come back as spares
 * (a rebuild starts over), {@code faulty} ones come back attached and faulty as they were (mdstat
 * shows them, remove and re-add work on them), {@code missing} ones stay out. Slots that removed
 * members left are remembered for re-add. An array whose initial resync had not finished resyncs
 * again if it has all its members.
 */
@Component
class ArrayRestorer implements RestorableSource {

    private static final System.Logger LOG = System.getLogger(ArrayRestorer.class.getName());

    /** Only this node's objects are assembled here; other nodes' instances assemble theirs. */
    private final NodeScope nodes;

    private final ArrayRepository repository;
    private final DeviceRegistry registry;
    private final MdArrays arrays;
    private final ManagementOperations management;
    private final ArrayChangeRecorder recorder;

    ArrayRestorer(ArrayRepository repository, DeviceRegistry registry, MdArrays arrays,
                  ManagementOperations management, ArrayChangeRecorder recorder, NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.registry = registry;
        this.arrays = arrays;
        this.management = management;
        this.recorder = recorder;
    }

    @Override
    public List<Restorable> restorables() {
        return nodes.local(repository.findAllByOrderByNameAsc()).stream().map(this::restorable).toList();
    }

    private Restorable restorable(ArrayEntity record) {
        String name = record.getName();
        Set<Ref> members = new java.util.HashSet<>(record.getMembers().stream()
                .map(m -> new Ref(m.getDeviceKind(), m.getDeviceName())).collect(Collectors.toSet()));
        if (record.getJournalDevice() != null) {
            members.add(new Ref(record.getJournalKind(), record.getJournalDevice()));
        }
        return new Restorable(new Ref(DeviceKind.ARRAY.label(), name), Set.of(), members,
                () -> assemble(name),
                state -> unavailable(name, state));
    }

    /** The record is read again here: assembly may have changed nothing yet, but it is the current row. */
    private void assemble(String name) {
        ArrayEntity record = repository.findByName(name).orElseThrow(() -> new IllegalStateException("its row is gone"));
        MdArraySpec spec = spec(record);
        if (spec.metadata().present()) {
            assembleFromSuperblocks(record, spec);
            return;
        }
        String[] slots = new String[record.getRaidDevices()];
        Map<ArrayMemberEntity, String> missing = new LinkedHashMap<>();
        List<String> spares = new ArrayList<>();
        List<MdArrays.FaultyMember> faulty = new ArrayList<>();
        for (ArrayMemberEntity m : record.getMembers()) {
            String why = unavailableBecause(m);
            switch (m.getState()) {
                case MemberRows.IN_SYNC -> {
                    int slot = m.getSlot() == null ? -1 : m.getSlot();
                    if (slot < 0 || slot >= slots.length || slots[slot] != null) {
                        throw new IllegalStateException("member " + m.getDeviceName() + " is stored in slot " + slot
                                + ", which the array does not have or another member fills");
                    }
                    if (why == null) {
                        slots[slot] = m.getDeviceName();
                    } else {
                        missing.put(m, why);
                    }
                }
                case MemberRows.REBUILDING, MemberRows.SPARE -> {
                    if (why == null) {
                        spares.add(m.getDeviceName());
                    }
                }
                case MemberRows.FAULTY -> {
                    if (why == null) {
                        faulty.add(new MdArrays.FaultyMember(m.getDeviceName(),
                                m.getSlot() == null ? -1 : m.getSlot(), m.getFaultReason()));
                    }
                }
                default -> { } // missing members stay out: they were not there at the last start
            }
        }
        MdArray array = build(record, spec, Arrays.asList(slots), spares, faulty, missing);
        started(record, array, missing, Map.of());
    }

    /**
     * Writes the rows of a freshly assembled array (the missing and refused members with their
     * reasons), then registers it; stops it if it is inactive or the rows cannot be written. The
     * members' write-mostly flags come from the rows (with or without superblocks).
     */
    private void started(ArrayEntity record, MdArray array, Map<ArrayMemberEntity, String> missing,
                         Map<String, String> refused) {
        String name = record.getName();
        for (ArrayMemberEntity m : record.getMembers()) {
            if (m.isWriteMostly() && MemberRows.attached(array, m.getDeviceName())) {
                array.writeMostly(m.getDeviceName(), true);
            }
        }
        recorder.watch(array);
        try {
            String inactive = array.inactiveReason();
            if (inactive != null) {
                throw new IllegalStateException(inactive + describe(missing));
            }
            management.run(changes -> {
                ArrayEntity current = repository.findByName(name).orElseThrow();
                for (ArrayMemberEntity m : current.getMembers()) {
                    missing.keySet().stream().filter(x -> x.getId().equals(m.getId())).findFirst().ifPresent(x ->
                            m.set(MemberRows.MISSING, m.getSlot(), false, "not there at start-up: " + missing.get(x)));
                    if (refused.containsKey(m.getDeviceName())) {
                        m.set(MemberRows.MISSING, m.getSlot(), false, "refused at start-up: " + refused.get(m.getDeviceName()));
                    }
                }
                MemberRows.write(current, array, d -> ArrayService.kindOf(registry, d));
                repository.saveAndFlush(current);
            });
        } catch (RuntimeException e) {
            arrays.stop(name);
            throw e;
        }
        registry.register(name, DeviceKind.ARRAY, array);
        claimMembers(record);
    }

    /**
     * An array with metadata: every configured member that is there is examined, and the
     * superblocks decide. Blank members are added back as spares; all blank means a re-create.
     */
    private void assembleFromSuperblocks(ArrayEntity record, MdArraySpec spec) {
        Map<ArrayMemberEntity, String> missing = new LinkedHashMap<>();
        List<String> present = new ArrayList<>();
        List<MdArrays.FaultyMember> faulty = new ArrayList<>();
        for (ArrayMemberEntity m : record.getMembers()) {
            String why = unavailableBecause(m);
            if (m.getState().equals(MemberRows.FAULTY)) {
                // an acknowledged failure stands: not assembled, not rebuilt; remove and re-add bring it back
                if (why == null) {
                    faulty.add(new MdArrays.FaultyMember(m.getDeviceName(), m.getSlot() == null ? -1 : m.getSlot(),
                            m.getFaultReason()));
                }
            } else if (why == null) {
                present.add(m.getDeviceName());
            } else if (!m.getState().equals(MemberRows.MISSING)) {
                missing.put(m, why);
            }
        }
        List<Examination> exams = present.stream().map(arrays::examine).toList();
        List<String> blank = exams.stream().filter(Examination::blank).map(Examination::device).toList();
        MdArray array;
        Map<String, String> refused = new LinkedHashMap<>();
        try {
            if (!present.isEmpty() && blank.size() == present.size()) {
                array = recreate(record, spec, present);
                arrays.attachFaulty(spec.name(), faulty);
            } else {
                List<String> examined = present.stream().filter(d -> !blank.contains(d)).toList();
                MdAssembly.Result result = arrays.assemble(spec, record.getRaidDevices(), examined, faulty);
                array = result.array();
                for (MdAssembly.DeviceOutcome d : result.devices()) {
                    if (d.outcome().equals("refused")) {
                        refused.put(d.device(), d.reason());
                    }
                }
                if (array.inactiveReason() == null) {
                    for (String d : blank) {
                        arrays.add(spec.name(), d);
                    }
                }
            }
        } catch (MdArgumentException | MdStateException e) {
            throw new IllegalStateException(e.getMessage() + describe(missing), e);
        }
        started(record, array, missing, refused);
    }

    /** Every member is blank (memory disks after a restart): new superblocks, same uuid, as the rows say. */
    private MdArray recreate(ArrayEntity record, MdArraySpec spec, List<String> present) {
        String[] slots = new String[record.getRaidDevices()];
        List<String> spares = new ArrayList<>();
        for (ArrayMemberEntity m : record.getMembers()) {
            if (!present.contains(m.getDeviceName())) {
                continue;
            }
            boolean inSlot = m.getSlot() != null && m.getSlot() >= 0 && m.getSlot() < slots.length
                    && slots[m.getSlot()] == null && !m.isReplacement() && !m.getState().equals(MemberRows.SPARE);
            if (inSlot) {
                slots[m.getSlot()] = m.getDeviceName();
            } else {
                spares.add(m.getDeviceName());
            }
        }
        List<String> inSlots = Arrays.asList(slots);
        if (inSlots.contains(null)) {
            throw new IllegalStateException("every member lost its superblock and some slots have no device to write new"
                    + " ones to: " + inSlots);
        }
        MdArray array = arrays.create(spec.withAssumeClean(!record.isResyncPending()), inSlots);
        try {
            spares.forEach(d -> arrays.add(spec.name(), d));
        } catch (RuntimeException e) {
            arrays.stop(spec.name());
            throw e;
        }
        return array;
    }

    private MdArray build(ArrayEntity record, MdArraySpec spec, List<String> slots, List<String> spares,
                          List<MdArrays.FaultyMember> faulty, Map<ArrayMemberEntity, String> missing) {
        try {
            // With a journal the array is always assembled: create would format the journal unread.
            if (!spec.assumeClean() && slots.stream().allMatch(Objects::nonNull) && record.getJournalDevice() == null) {
                MdArray array = arrays.create(spec.withAssumeClean(false), slots);
                try {
                    spares.forEach(s -> arrays.add(spec.name(), s));
                } catch (RuntimeException e) {
                    arrays.stop(spec.name());
                    throw e;
                }
                return array;
            }
            return arrays.assemble(spec, slots, spares, faulty, record.getFormerSlots(), record.getMemberBytes(),
                    record.getJournalDevice());
        } catch (MdArgumentException | MdStateException e) {
            throw new IllegalStateException(e.getMessage() + describe(missing), e);
        }
    }

    /** "; members[1] d2: disk d2 is failed (its image file … is missing)". */
    private static String describe(Map<ArrayMemberEntity, String> missing) {
        return missing.entrySet().stream().map(e -> "; " + "members[" + e.getKey().getSlot() + "] "
                + e.getKey().getDeviceName() + ": " + e.getValue()).collect(Collectors.joining());
    }

    /** Null if the member's device is live, else why not. */
    private String unavailableBecause(ArrayMemberEntity m) {
        RegisteredDevice d = registry.find(m.getDeviceName()).orElse(null);
        if (d == null) {
            return m.getDeviceKind() + " " + m.getDeviceName() + " is not configured";
        }
        if (!d.live()) {
            return d.kind().label() + " " + d.name() + " is " + d.state().actual()
                    + (d.state().reason() == null ? "" : " (" + d.state().reason() + ")");
        }
        return null;
    }

    /** Keeps the name and the members of an array that cannot be assembled, so neither is taken by another. */
    private void unavailable(String name, ObjectState state) {
        registry.reserve(name, DeviceKind.ARRAY, state);
        repository.findByName(name).ifPresent(this::claimMembers);
    }

    /**
     * Every member the rows name, faulty and missing ones included, is the array's again, so
     * nothing else takes it. Arrays are assembled before exports and mapped devices on the same
     * device (kinds in name order), so a claim here only fails against a configuration stored
     * before members were owned; that holder is then refused instead, and this is logged.
     */
    private void claimMembers(ArrayEntity record) {
        Holder holder = ArrayService.holder(record.getName());
        List<String> owned = new ArrayList<>();
        record.getMembers().forEach(m -> owned.add(m.getDeviceName()));
        if (record.getJournalDevice() != null) {
            owned.add(record.getJournalDevice());
        }
        for (String device : owned) {
            if (registry.find(device).isPresent()) {
                try {
                    registry.claim(device, holder, ArrayService.MEMBER_CLAIM);
                } catch (ProblemException e) {
                    LOG.log(System.Logger.Level.WARNING, "array " + record.getName() + " cannot own its member "
                            + device + ": " + e.getMessage());
                }
            }
        }
    }

    /**
     * The initial resync had not finished, or a parity array without a journal was not stopped
     * cleanly: some stripe may hold new data beside old parity, so the parity is recomputed (md
     * without a bitmap). A journal's replay makes those stripes whole instead. With metadata the row's
     * flag is not asked: the superblocks say whether the array was clean, and the bitmap which rows
     * to resync.
     */
    private static boolean mustResync(ArrayEntity r, MdLevel level) {
        boolean superblocks = !r.getMetadata().equals(MetadataSpec.Format.NONE.label());
        return r.isResyncPending()
                || (level.parity() && r.isDirty() && r.getJournalDevice() == null && !superblocks);
    }

    static MdArraySpec spec(ArrayEntity r) {
        MdLevel level = MdLevel.fromLabel(r.getLevel());
        MetadataSpec metadata = MetadataSpec.NONE;
        if (!r.getMetadata().equals(MetadataSpec.Format.NONE.label())) {
            MetadataSpec.Bitmap bitmap = r.getBitmapChunkBytes() == null ? null
                    : new MetadataSpec.Bitmap(r.getBitmapChunkBytes(), MetadataSpec.Bitmap.DEFAULT_DAEMON_SLEEP);
            metadata = new MetadataSpec(MetadataSpec.Format.parse(r.getMetadata()), MdUuid.parse(r.getUuid()), bitmap);
        }
        Integer code = r.getLayoutCode();
        return new MdArraySpec(r.getName(), level, r.getChunkBytes(),
                code == null || level.parity() ? null : Raid10Layout.fromCode(code),
                new MdStrategies(FlushStrategy.fromLabel(r.getFlushStrategy()),
                        BarrierStrategy.fromLabel(r.getBarrierStrategy())),
                new SpeedLimits(r.getSpeedMinKiBps(), r.getSpeedMaxKiBps()), !mustResync(r, level),
                level.parity() ? new ParitySpec(ParityLayout.fromCode(code), r.getStripeCacheSize()) : null, metadata);
    }
}
