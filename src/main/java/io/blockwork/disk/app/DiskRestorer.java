package io.blockwork.disk.app;

import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.disk.store.DiskEntity;
import io.blockwork.disk.store.DiskRepository;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.assembly.Restorable;
import io.blockwork.shared.assembly.RestorableSource;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * Disks at start-up: file disks reopen their images, memory and null disks come back empty, nbd
 * disks connect in the background; images that no file disk owns are moved into lost+found.
 * Disks depend on nothing, so they are assembled first.
 */
@Component
class DiskRestorer implements RestorableSource {

    /** Only this node's objects are assembled here; other nodes' instances assemble theirs. */
    private final NodeScope nodes;

    private final DiskRepository repository;
    private final DeviceRegistry registry;
    private final DiskEngines engines;

    DiskRestorer(DiskRepository repository, DeviceRegistry registry, DiskEngines engines, NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.registry = registry;
        this.engines = engines;
    }

    /**
     * Also where images no disk owns are swept into {@code lost+found/} ({@link DiskEngines#sweepOrphans}):
     * start-up is the one time no create or delete can be half done. Not when the database has no
     * file disk at all: that is a new or lost database beside existing images, which the user
     * adopts ({@code "image":"existing"}) to bring arrays back from their members.
     */
    @Override
    public List<Restorable> restorables() {
        List<DiskEntity> records = nodes.local(repository.findAllByOrderByNameAsc());
        Set<String> fileDisks = records.stream().filter(r -> DiskType.FILE.label().equals(r.getType()))
                .map(DiskEntity::getName).collect(Collectors.toSet());
        if (!fileDisks.isEmpty()) {
            engines.sweepOrphans(fileDisks);
        }
        return records.stream().map(this::restorable).toList();
    }

    /** The record is checked when assembled, so one unreadable row fails that disk, not the start-up. */
    private Restorable restorable(DiskEntity record) {
        String name = record.getName();
        return new Restorable(new Ref(DeviceKind.DISK.label(), name), Set.of(),
                () -> {
                    AbstractBlockDevice disk = engines.reopen(DiskService.toSpec(record));
                    registry.register(name, DeviceKind.DISK, disk);
                },
                state -> registry.reserve(name, DeviceKind.DISK, state));
    }
}
