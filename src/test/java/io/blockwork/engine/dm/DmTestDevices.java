package io.blockwork.engine.dm;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.contract.DeviceUnderTest;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.DiskFaults;
import io.blockwork.engine.dm.targets.Targets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A device namespace for dm tests: disks by name, mapped devices created into it. */
public final class DmTestDevices implements DeviceLookup {

    private final Map<String, BlockDevice> byName = new LinkedHashMap<>();
    private final List<Disk> disks = new ArrayList<>();
    private DmConfig config = Targets.config();

    public DmTestDevices config(DmConfig c) {
        this.config = c;
        return this;
    }

    public DmConfig config() {
        return config;
    }

    public <T extends BlockDevice> T add(T device) {
        byName.put(device.name(), device);
        if (device instanceof Disk d) {
            disks.add(d);
        }
        return device;
    }

    /** A writeback memory disk, so power cuts can be modelled. */
    public Disk disk(String name, long bytes) {
        return add(Disk.memory(name, bytes, DiskConfig.writeback()));
    }

    public Disk disk(String name, long bytes, DiskConfig cfg) {
        return add(Disk.memory(name, bytes, cfg));
    }

    public MappedDevice create(String name, String table) {
        return add(MappedDevice.create(name, null, table, this, config));
    }

    @Override
    public BlockDevice find(String name) {
        return byName.get(name);
    }

    public void powerCut() {
        disks.forEach(Disk::powerCut);
    }

    public void breakAll() {
        disks.forEach(d -> d.faults(DiskFaults.ALL));
    }

    /** The kit's view of {@code device}: power cuts and failures reach every disk created here. */
    public DeviceUnderTest underTest(BlockDevice device) {
        return DeviceUnderTest.of(device).withPowerCut(this::powerCut).withBreakAll(this::breakAll);
    }
}
