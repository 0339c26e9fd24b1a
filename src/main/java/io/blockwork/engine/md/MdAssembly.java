package io.blockwork.engine.md;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.event.EngineListener;
import io.blockwork.engine.md.metadata.AssemblyPlan;
import io.blockwork.engine.md.metadata.BitmapSuperblock;
import io.blockwork.engine.md.metadata.Examination;
import io.blockwork.engine.md.metadata.MetadataSpec;
import io.blockwork.engine.md.metadata.Superblock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code mdadm --assemble} from the members' superblocks: builds the array an
 * {@link AssemblyPlan} describes. Stale members go back into their slots and are rebuilt
 * (through the bitmap when it allows), members that were rebuilding carry on from their recovery
 * offset, an array that was not clean resyncs (only the bitmap's dirty chunks when there is one),
 * and the first superblock round records the assembled state with a higher event count.
 */
public final class MdAssembly {

    /**
     * What became of one device.
     *
     * @param outcome {@code in_sync}, {@code rebuilding}, {@code re-added} (stale, rebuilt through the
     *        bitmap or in full), {@code spare} or {@code refused}
     * @param slot the slot it fills, -1 for spares and refused devices
     * @param reason why it was refused, or how it is rebuilt
     * @param blank refused because it has no metadata at all
     */
    public record DeviceOutcome(String device, String outcome, int slot, String reason, boolean blank) {}

    /** The assembled array (possibly inactive, with its reason) and every device's outcome. */
    public record Result(MdArray array, List<DeviceOutcome> devices) {}

    private MdAssembly() {}

    /**
     * The spec a superblock describes, named {@code name}, with the service's strategies and speed.
     *
     * @throws MdStateException for a level Blockwork does not have or a layout it cannot place
     */
    public static MdArraySpec specOf(String name, Superblock sb, BitmapSuperblock bitmap, MdStrategies strategies,
                                     SpeedLimits speed) {
        MdLevel level = MdLevel.fromMdNumber(sb.level()).orElseThrow(() -> new MdStateException("devices",
                "the superblocks describe md level " + sb.level() + ", which Blockwork does not have"));
        long chunk = level == MdLevel.RAID1 ? 0 : (long) sb.chunkSectors() * 512;
        Raid10Layout layout = level == MdLevel.RAID10 ? Raid10Layout.fromCode(sb.layout()) : null;
        ParitySpec parity = null;
        if (level.parity()) {
            try {
                parity = ParitySpec.defaults(level).withLayout(ParityLayout.fromCode(sb.layout()));
            } catch (MdArgumentException e) {
                throw new MdStateException("devices", "the superblocks describe " + level.label() + " layout "
                        + sb.layout() + ", which Blockwork cannot place: " + e.getMessage());
            }
        }
        MetadataSpec.Bitmap b = bitmap == null ? null : new MetadataSpec.Bitmap(bitmap.chunkBytes(), bitmap.daemonSleepSeconds());
        return new MdArraySpec(name, level, chunk, layout, strategies, speed, true, parity,
                new MetadataSpec(MetadataSpec.Format.V1_2, sb.arrayUuid(), b));
    }

    /**
     * Builds the array {@code plan} describes from {@code devices} (in the order they were examined)
     * as {@code spec}, which must match the freshest superblock. The array is started unless it is
     * inactive; the caller registers it. {@code listener} is told what happens to it from the start
     * (the re-adds of stale members included).
     *
     * @throws MdStateException when the superblocks contradict {@code spec}, or no device is usable
     */
    static Result build(MdArraySpec spec, int expectedWidth, List<BlockDevice> devices, List<Examination> exams,
                        AssemblyPlan plan, EngineListener listener) {
        Superblock fresh = plan.freshest();
        if (fresh == null) {
            throw new MdStateException("devices", "no device has a usable md superblock" + refusals(exams, plan));
        }
        checkMatches(spec, fresh, expectedWidth);
        int width = fresh.raidDisks();
        Member[] slots = new Member[width];
        Member[] replacements = new Member[width];
        List<Member> spares = new ArrayList<>();
        List<Integer> stale = new ArrayList<>();
        Set<Integer> numbers = new HashSet<>();
        int next = exams.stream().filter(Examination::usable).mapToInt(e -> e.sb().devNumber() + 1).max().orElse(0);
        List<DeviceOutcome> outcomes = new ArrayList<>(Arrays.asList(new DeviceOutcome[devices.size()]));
        for (int i = 0; i < devices.size(); i++) {
            AssemblyPlan.Decision d = plan.decisions().get(i);
            String name = devices.get(i).name();
            if (d.kind() == AssemblyPlan.Kind.REFUSED) {
                outcomes.set(i, new DeviceOutcome(name, "refused", -1, d.reason(), d.blank()));
                continue;
            }
            if (d.kind() == AssemblyPlan.Kind.STALE) {
                stale.add(i);
                continue;
            }
            Superblock sb = exams.get(i).sb();
            int number = numbers.add(sb.devNumber()) ? sb.devNumber() : next++;
            numbers.add(number);
            Member m = new Member(devices.get(i), number, MemberState.SPARE, -1, sb.dataOffset() << 9, sb.deviceUuid());
            switch (d.kind()) {
                case IN_SYNC -> {
                    m = new Member(devices.get(i), number, MemberState.IN_SYNC, d.slot(), sb.dataOffset() << 9, sb.deviceUuid());
                    m.writeMostly(sb.writeMostly());
                    slots[d.slot()] = m;
                    outcomes.set(i, new DeviceOutcome(name, "in_sync", d.slot(), null, false));
                }
                case REBUILDING -> {
                    m.writeMostly(sb.writeMostly());
                    m.rebuildInto(d.slot(), d.replacement(), d.recoveryBytes(), d.throughBitmap());
                    (d.replacement() ? replacements : slots)[d.slot()] = m;
                    outcomes.set(i, new DeviceOutcome(name, "rebuilding", d.slot(), "carries on from " + d.recoveryBytes()
                            + " bytes" + (d.throughBitmap() ? " through the bitmap" : ""), false));
                }
                default -> {
                    spares.add(m);
                    outcomes.set(i, new DeviceOutcome(name, "spare", -1, d.reason(), false));
                }
            }
        }
        if (Arrays.stream(slots).allMatch(s -> s == null)) {
            throw new MdStateException("devices", "no device holds a slot of array " + fresh.arrayUuid() + refusals(exams, plan));
        }
        for (int i = 0; i < width && !spec.level().redundant(); i++) {
            if (slots[i] == null) {
                throw new MdStateException("devices", spec.level().label() + " has no redundancy and cannot start without"
                        + " every member: slot " + i + " is missing" + refusals(exams, plan));
            }
        }
        boolean degraded = !stale.isEmpty() || Arrays.stream(slots).anyMatch(s -> s == null || s.state() != MemberState.IN_SYNC);
        boolean clean = fresh.clean();
        long resyncFrom = clean ? (fresh.resyncOffset() == Superblock.MAX_SECTOR ? Long.MAX_VALUE : fresh.resyncOffset() << 9) : 0;
        BitmapSuperblock bitmap = plan.bitmap();
        byte[] bits = plan.bits();
        long neededFrom = !clean || degraded ? 0 : resyncFrom;
        if (bitmap != null && bitmap.events() < fresh.events()) {
            // md: "bitmap file is out of date -- forcing full recovery"
            bits = new byte[bits.length];
            Arrays.fill(bits, (byte) 0xff);
            neededFrom = 0;
        }
        Member first = Arrays.stream(slots).filter(s -> s != null).findFirst().orElseThrow();
        MemberSet members = new MemberSet(spec.level(), slots, replacements, spares, Math.max(next, numbers.stream()
                .mapToInt(n -> n + 1).max().orElse(0)));
        MdArray array = new MdArray(spec, members, fresh.size() << 9, resyncFrom == Long.MAX_VALUE,
                new MemberSuperblocks.Setup(fresh.name(), fresh.ctime(), first.dataOffset(), fresh.events(), clean, bitmap,
                        bits, neededFrom, fresh.maxDev()), null, false);
        array.listen(listener);
        if (array.personality().usedMemberBytes() != fresh.size() << 9) {
            throw new MdStateException("devices", "the members give " + array.personality().usedMemberBytes()
                    + " bytes of each member, but the superblocks record " + (fresh.size() << 9));
        }
        if (array.personality() instanceof Redundancy r && resyncFrom != Long.MAX_VALUE) {
            r.syncedTo(r.arrayOffsetOfSync(resyncFrom));
        }
        for (int i : stale) {
            outcomes.set(i, reAdd(array, devices.get(i), exams.get(i).sb(), plan.decisions().get(i)));
        }
        if (array.inactiveReason() == null) {
            array.startMetadata();
        }
        array.startDaemon();
        return new Result(array, List.copyOf(outcomes));
    }

    /** A stale member back into its slot (or, if another device holds it, a spare). */
    private static DeviceOutcome reAdd(MdArray array, BlockDevice device, Superblock sb, AssemblyPlan.Decision d) {
        if (array.inactiveReason() != null) {
            return new DeviceOutcome(device.name(), "refused", -1, d.reason() + ", but the array cannot start", false);
        }
        try {
            array.members().reAdd(device, d.slot(), sb.devNumber(),
                    new MemberSet.Placement(sb.dataOffset() << 9, sb.deviceUuid()), d.throughBitmap(), sb.writeMostly());
            return new DeviceOutcome(device.name(), "re-added", d.slot(), d.reason(), false);
        } catch (MdStateException e) {
            array.add(device);
            return new DeviceOutcome(device.name(), "spare", -1, d.reason() + "; " + e.getMessage(), false);
        }
    }

    private static void checkMatches(MdArraySpec spec, Superblock sb, int expectedWidth) {
        List<String> differs = new ArrayList<>();
        if (expectedWidth > 0 && expectedWidth != sb.raidDisks()) {
            differs.add(sb.raidDisks() + " raid devices");
        }
        if (spec.level().mdNumber() != sb.level()) {
            differs.add("level " + sb.level());
        }
        long chunk = spec.level() == MdLevel.RAID1 ? 0 : spec.chunkBytes() >>> 9;
        if (chunk != sb.chunkSectors()) {
            differs.add("chunk " + sb.chunkSectors() * 512L);
        }
        int layout = spec.layoutCode() == null ? 0 : spec.layoutCode();
        if (layout != sb.layout()) {
            differs.add(String.format("layout 0x%x", sb.layout()));
        }
        if (spec.metadata().uuid() != null && !spec.metadata().uuid().equals(sb.arrayUuid())) {
            differs.add("uuid " + sb.arrayUuid());
        }
        if (!differs.isEmpty()) {
            throw new MdStateException("devices", "the members' superblocks describe another array ("
                    + String.join(", ", differs) + ")");
        }
    }

    private static String refusals(List<Examination> exams, AssemblyPlan plan) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < exams.size(); i++) {
            AssemblyPlan.Decision d = plan.decisions().get(i);
            if (d.kind() == AssemblyPlan.Kind.REFUSED) {
                s.append("; ").append(exams.get(i).device()).append(": ").append(d.reason());
            }
        }
        return s.toString();
    }
}
