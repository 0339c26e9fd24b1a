package io.blockwork.pool.snapshot.app;

import io.blockwork.pool.snapshot.store.SnapshotRepository;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.pool.volume.store.VolumeRepository;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.assembly.Restorable;
import io.blockwork.shared.assembly.RestorableSource;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.pool.volume.app.VolumeService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * Snapshots in the start-up report. A volume's snapshots are rebuilt with it
 * ({@link SnapshotAssembly}, through the volume's restorable), before anything can write to it;
 * these restorables, ordered after their volume, report what came back and why not.
 */
@Component
class SnapshotRestorer implements RestorableSource {

    /** Only this node's objects are assembled here; other nodes' instances assemble theirs. */
    private final NodeScope nodes;

    private final SnapshotRepository repository;
    private final VolumeRepository volumes;
    private final SnapshotAssembly assembly;

    SnapshotRestorer(SnapshotRepository repository, VolumeRepository volumes, SnapshotAssembly assembly, NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.volumes = volumes;
        this.assembly = assembly;
    }

    @Override
    public List<Restorable> restorables() {
        Map<Long, VolumeEntity> byId = volumes.findAll().stream()
                .collect(Collectors.toMap(VolumeEntity::getId, Function.identity()));
        return nodes.local(repository.findAllByOrderByIdAsc()).stream()
                .map(s -> new Restorable(new Ref(DeviceKind.SNAPSHOT.label(), s.getName()),
                        Set.of(VolumeService.ref(byId.get(s.getVolumeId()))),
                        () -> assembly.requireAssembled(s.getName()),
                        state -> assembly.markUnavailable(s.getName(), state)))
                .toList();
    }
}
