package io.blockwork.dm.app;

import io.blockwork.engine.dm.DmConfig;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.TableException;
import io.blockwork.dm.store.DmDeviceEntity;
import io.blockwork.dm.store.DmDeviceRepository;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.assembly.Restorable;
import io.blockwork.shared.assembly.RestorableSource;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import java.util.List;
import org.springframework.stereotype.Component;

/**
 * Mapped devices at start-up, after the devices their tables use (disks, arrays, other mapped
 * devices: the record's {@code uses}): the live table is built and made live, the inactive one
 * loaded, and a device that was suspended is suspended again. A table that cannot be built any
 * more (a device is gone or smaller) fails that device with the table's reason.
 */
@Component
class DmRestorer implements RestorableSource {

    /** Only this node's objects are assembled here; other nodes' instances assemble theirs. */
    private final NodeScope nodes;

    private final DmDeviceRepository repository;
    private final DeviceRegistry registry;
    private final DmHolds holds;
    private final DmConfig config;

    DmRestorer(DmDeviceRepository repository, DeviceRegistry registry, DmHolds holds, DmConfig config, NodeScope nodes) {
        this.nodes = nodes;
        this.config = config;
        this.repository = repository;
        this.registry = registry;
        this.holds = holds;
    }

    @Override
    public List<Restorable> restorables() {
        return nodes.local(repository.findAllByOrderByNameAsc()).stream().map(this::restorable).toList();
    }

    private Restorable restorable(DmDeviceEntity record) {
        String name = record.getName();
        return new Restorable(new Ref(DeviceKind.DM.label(), name), DmHolds.refs(record.getUses()),
                () -> assemble(record),
                state -> registry.reserve(name, DeviceKind.DM, state));
    }

    private void assemble(DmDeviceEntity r) {
        MappedDevice d;
        try {
            d = MappedDevice.create(r.getName(), r.getUuid(), r.getLiveTable(), holds.lookup(), DmService.config(config, DmService.strategies(r)));
        } catch (TableException e) {
            throw new IllegalStateException("its live table is refused: " + e.getMessage(), e);
        }
        try {
            if (r.getInactiveTable() != null) {
                try {
                    d.load(r.getInactiveTable(), holds.lookup());
                } catch (TableException e) {
                    throw new IllegalStateException("its inactive table is refused: " + e.getMessage(), e);
                }
            }
            if (r.isSuspended()) {
                d.suspend();
            }
            registry.register(r.getName(), DeviceKind.DM, d);
        } catch (RuntimeException e) {
            d.remove();
            throw e;
        }
        holds.hold(r.getName(), holds.uses(d).keySet());
    }
}
