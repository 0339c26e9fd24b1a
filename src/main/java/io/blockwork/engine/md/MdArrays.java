package io.blockwork.engine.md;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.event.EngineListener;
import io.blockwork.engine.md.metadata.AssemblyPlan;
import io.blockwork.engine.md.metadata.Examination;
import io.blockwork.engine.md.metadata.MetadataException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The md arrays of one service (md's {@code all_mddevs}): creation and management by device
 * name, lookup, and the rule that a device belongs to at most one array. Device names are
 * resolved through the lookup the service supplies; every error names the request field at fault
 * and leaves everything as it was.
 */
public final class MdArrays {

    private final Function<String, BlockDevice> devices;
    private final EngineListener listener;
    /** In creation order. */
    @GuardedBy("this")
    private final Map<String, MdArray> arrays = new LinkedHashMap<>();

    /** @param devices the block device of a name, or null if there is none */
    public MdArrays(Function<String, BlockDevice> devices) {
        this(devices, EngineListener.NONE);
    }

    /** @param listener told what happens to every array created or assembled here ({@link MdArray#listen}) */
    public MdArrays(Function<String, BlockDevice> devices, EngineListener listener) {
        this.devices = devices;
        this.listener = listener;
    }

    /** {@code mdadm --create} with members by name, in slot order. */
    public synchronized MdArray create(MdArraySpec spec, List<String> members) {
        return create(spec, members, null);
    }

    /** {@code mdadm --create --write-journal}: as {@link #create(MdArraySpec, List)} with a journal device (null for none). */
    public synchronized MdArray create(MdArraySpec spec, List<String> members, String journal) {
        refuseName(spec.name());
        List<BlockDevice> resolved = new ArrayList<>();
        for (int i = 0; members != null && i < members.size(); i++) {
            resolved.add(resolve("members[" + i + "]", members.get(i)));
        }
        BlockDevice j = journal == null ? null : resolve("journal", journal);
        MdArray array = MdArray.create(spec, resolved, j, listener);
        arrays.put(spec.name(), array);
        return array;
    }

    /**
     * Reassembly at start-up: a slot whose device is null or unknown counts as missing (the
     * array comes up degraded, or inactive with the reason in its detail); unknown spares are
     * skipped. Names already in use are still refused.
     */
    public synchronized MdArray assemble(MdArraySpec spec, List<String> slots, List<String> spares, long memberBytes) {
        return assemble(spec, slots, spares, List.of(), Map.of(), memberBytes, null);
    }

    /**
     * As {@link #assemble(MdArraySpec, List, List, long)}, with what the array remembers of members
     * out of their slots: {@code faulty} ones come back attached and faulty (unknown devices are
     * skipped), and {@code formerSlots} (device name to slot) are where removed members may be
     * re-added; and replaying the write journal on {@code journal} (null for none) first.
     */
    public synchronized MdArray assemble(MdArraySpec spec, List<String> slots, List<String> spares,
                                         List<FaultyMember> faulty, Map<String, Integer> formerSlots,
                                         long memberBytes, String journal) {
        refuseName(spec.name());
        List<BlockDevice> resolved = new ArrayList<>();
        for (int i = 0; i < slots.size(); i++) {
            String name = slots.get(i);
            BlockDevice d = name == null ? null : devices.apply(name);
            if (d != null) {
                refuseBusy("members[" + i + "]", d);
            }
            resolved.add(d);
        }
        List<BlockDevice> spareDevices = new ArrayList<>();
        for (int i = 0; i < spares.size(); i++) {
            BlockDevice d = devices.apply(spares.get(i));
            if (d != null) {
                refuseBusy("spares[" + i + "]", d);
                spareDevices.add(d);
            }
        }
        BlockDevice j = null;
        if (journal != null) {
            j = devices.apply(journal);
            if (j == null) {
                throw new MdStateException("journal", "the write journal " + journal + " is not there; without it the"
                        + " array's last writes cannot be made consistent");
            }
            refuseBusy("journal", j);
        }
        MdArray array = MdArray.assemble(spec, resolved, spareDevices, memberBytes, j, listener);
        formerSlots.forEach(array::rememberFormerSlot);
        if (j != null) {
            faulty = faulty.stream().filter(f -> !f.device().equals(journal)).toList();
        }
        attachFaulty(array, faulty);
        arrays.put(spec.name(), array);
        return array;
    }

    /** As the assemblies do, for an array re-created at start-up (every member had lost its superblock). */
    public synchronized void attachFaulty(String name, List<FaultyMember> faulty) {
        MdArray array = arrays.get(name);
        if (array != null) {
            attachFaulty(array, faulty);
        }
    }

    /**
     * Attaches each member that had failed when the array stopped, faulty as it was, so mdstat and
     * the array's detail agree with the configuration; devices that are unknown or already used
     * (by this array or another) are skipped.
     */
    @GuardedBy("this")
    private void attachFaulty(MdArray array, List<FaultyMember> faulty) {
        for (FaultyMember f : faulty) {
            BlockDevice d = devices.apply(f.device());
            if (d != null && holderOf(d) == null && array.detail().members().stream()
                    .noneMatch(m -> d.name().equals(m.device()))) {
                array.attachFaulty(d, f.formerSlot(), f.reason());
            }
        }
    }

    /**
     * A member that had failed when the array stopped.
     *
     * @param formerSlot the slot it filled, or -1
     * @param reason why it failed, as its detail said
     */
    public record FaultyMember(String device, int formerSlot, String reason) {}

    /**
     * {@code mdadm --assemble} from superblocks alone: the array the devices' superblocks describe,
     * named {@code name} (null: the name in the superblocks), with the given strategies and speed.
     * Devices that cannot be used (no superblock, a torn one, another array's) are left out with
     * their reason in the result; the array comes up degraded without them if it can.
     */
    public synchronized MdAssembly.Result assemble(String name, List<String> deviceNames, MdStrategies strategies,
                                                   SpeedLimits speed) {
        List<BlockDevice> devices = resolveAll(deviceNames);
        List<Examination> exams = devices.stream().map(Examination::of).toList();
        AssemblyPlan plan;
        try {
            plan = AssemblyPlan.of(exams, null);
        } catch (MetadataException e) {
            throw new MdArgumentException("devices", e.getMessage());
        }
        if (plan.freshest() == null) {
            return MdAssembly.build(null, 0, devices, exams, plan, listener);
        }
        String arrayName = name != null ? name : plan.freshest().shortName();
        MdArraySpec spec;
        try {
            spec = MdAssembly.specOf(arrayName, plan.freshest(), plan.bitmap(), strategies, speed);
        } catch (MdArgumentException e) {
            throw new MdArgumentException(name != null ? e.field() : "devices", e.getMessage()
                    + (name == null ? " (the name comes from the superblocks; give one)" : ""));
        }
        refuseName(spec.name());
        MdAssembly.Result result = MdAssembly.build(spec, 0, devices, exams, plan, listener);
        arrays.put(spec.name(), result.array());
        return result;
    }

    /**
     * Reassembly at start-up of a configured array with metadata: {@code deviceNames} are the
     * members the configuration lists that are there (unknown ones are skipped); their
     * superblocks decide which are in sync, stale or spares. {@code faulty} members (failed by the
     * user or the array and recorded so) are not examined: they come back attached and faulty, as
     * mdadm --assemble leaves a failed member out until it is re-added.
     */
    public synchronized MdAssembly.Result assemble(MdArraySpec spec, int width, List<String> deviceNames,
                                                   List<FaultyMember> faulty) {
        refuseName(spec.name());
        List<BlockDevice> found = new ArrayList<>();
        for (int i = 0; i < deviceNames.size(); i++) {
            BlockDevice d = devices.apply(deviceNames.get(i));
            if (d != null) {
                refuseBusy("members[" + i + "]", d);
                found.add(d);
            }
        }
        List<Examination> exams = found.stream().map(Examination::of).toList();
        MdAssembly.Result result = MdAssembly.build(spec, width, found, exams, AssemblyPlan.of(exams, spec.metadata().uuid()),
                listener);
        attachFaulty(result.array(), faulty);
        arrays.put(spec.name(), result.array());
        return result;
    }

    /** {@code mdadm --examine}: what the device's md metadata says; any device, members of running arrays too. */
    public Examination examine(String device) {
        BlockDevice d;
        synchronized (this) {
            d = devices.apply(device);
        }
        if (d == null) {
            throw new MdArgumentException("device", "unknown device '" + device + "'");
        }
        return Examination.of(d);
    }

    @GuardedBy("this")
    private List<BlockDevice> resolveAll(List<String> names) {
        if (names == null || names.isEmpty()) {
            throw new MdArgumentException("devices", "at least one device is required");
        }
        List<BlockDevice> out = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            BlockDevice d = resolve("devices[" + i + "]", names.get(i));
            if (out.contains(d)) {
                throw new MdArgumentException("devices[" + i + "]", d.name() + " is listed twice");
            }
            out.add(d);
        }
        return out;
    }

    public synchronized Optional<MdArray> get(String name) {
        return Optional.ofNullable(arrays.get(name));
    }

    public synchronized List<MdArray> list() {
        return List.copyOf(arrays.values());
    }

    /** {@code mdadm --add}. */
    public void add(String array, String device) {
        MdArray a = require(array);
        synchronized (this) {
            a.add(resolve("device", device));
        }
    }

    /** {@code mdadm --replace member --with device}. */
    public void replace(String array, String member, String device) {
        MdArray a = require(array);
        synchronized (this) {
            a.replace(member, resolve("device", device));
        }
    }

    /** {@code mdadm --re-add}; returns how the device is rebuilt ({@code bitmap} or {@code full}). */
    public String reAdd(String array, String device) {
        MdArray a = require(array);
        synchronized (this) {
            BlockDevice d = devices.apply(device);
            if (d == null) {
                throw new MdArgumentException("device", "unknown device '" + device + "'");
            }
            String holder = holderOf(d);
            if (holder != null && !holder.equals(array)) {
                throw new MdStateException("device", device + " is a member of " + holder);
            }
            return a.reAdd(d);
        }
    }

    /** {@code mdadm --stop}: the array stops and its members are free again. */
    public void stop(String name) {
        MdArray a;
        synchronized (this) {
            a = arrays.remove(name);
        }
        if (a == null) {
            throw new MdArgumentException("name", "no array named '" + name + "'");
        }
        a.stop();
    }

    /** The array {@code device} belongs to (as any kind of member), or null. */
    public synchronized String holderOf(BlockDevice device) {
        for (MdArray a : arrays.values()) {
            if (a.members().contains(device) || a.journal() == device) {
                return a.name();
            }
        }
        return null;
    }

    /** /proc/mdstat over every array. */
    public String mdstat() {
        return MdStat.render(list());
    }

    private MdArray require(String name) {
        return get(name).orElseThrow(() -> new MdArgumentException("name", "no array named '" + name + "'"));
    }

    @GuardedBy("this")
    private void refuseName(String name) {
        if (arrays.containsKey(name)) {
            throw new MdStateException("name", "an array named '" + name + "' exists");
        }
    }

    @GuardedBy("this")
    private BlockDevice resolve(String field, String name) {
        if (name == null || name.isBlank()) {
            throw new MdArgumentException(field, "a device name is required");
        }
        BlockDevice d = devices.apply(name);
        if (d == null) {
            throw new MdArgumentException(field, "unknown device '" + name + "'");
        }
        refuseBusy(field, d);
        return d;
    }

    private void refuseBusy(String field, BlockDevice d) {
        String holder = holderOf(d);
        if (holder != null) {
            throw new MdStateException(field, d.name() + " is already a member of " + holder);
        }
    }
}
