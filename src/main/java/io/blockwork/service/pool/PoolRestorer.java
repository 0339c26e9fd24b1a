package io.blockwork.service.pool;

import io.blockwork.persistence.pool.PoolRecord;
import io.blockwork.persistence.pool.PoolRepository;
import io.blockwork.persistence.pool.SnapshotRecord;
import io.blockwork.persistence.pool.SnapshotRepository;
import io.blockwork.persistence.pool.VolumeRecord;
import io.blockwork.persistence.pool.VolumeRepository;
import io.blockwork.service.assembly.Ref;
import io.blockwork.service.assembly.Restorable;
import io.blockwork.service.assembly.RestorableSource;
import io.blockwork.service.device.DeviceKind;
import io.blockwork.service.device.DeviceRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * Pools and volumes at start-up: a pool after its device (it checks the device still holds every
 * extent and claims it again), each volume after its pool (its table is rebuilt from its
 * segments), with its snapshots (see {@link SnapshotService#assemble}). A pool that cannot come
 * back blocks its volumes; they keep their names.
 */
@Component
class PoolRestorer implements RestorableSource {

    private final PoolRepository poolRepository;
    private final VolumeRepository volumeRepository;
    private final PoolService pools;
    private final VolumeService volumes;
    private final SnapshotRepository snapshotRepository;
    private final SnapshotService snapshots;
    private final DeviceRegistry registry;

    PoolRestorer(PoolRepository poolRepository, VolumeRepository volumeRepository, PoolService pools,
                 VolumeService volumes, SnapshotRepository snapshotRepository, SnapshotService snapshots,
                 DeviceRegistry registry) {
        this.poolRepository = poolRepository;
        this.volumeRepository = volumeRepository;
        this.pools = pools;
        this.volumes = volumes;
        this.snapshotRepository = snapshotRepository;
        this.snapshots = snapshots;
        this.registry = registry;
    }

    @Override
    public List<Restorable> restorables() {
        List<PoolRecord> all = poolRepository.findAllByOrderByNameAsc();
        Map<Long, PoolRecord> byId = all.stream().collect(Collectors.toMap(PoolRecord::getId, Function.identity()));
        List<Restorable> out = new ArrayList<>();
        for (PoolRecord p : all) {
            out.add(new Restorable(ref(p), Set.of(new Ref(p.getDeviceKind(), p.getDeviceName())),
                    () -> pools.assemble(p), state -> pools.markUnavailable(p, state)));
        }
        Map<Long, VolumeRecord> volumesById = new HashMap<>();
        for (VolumeRecord v : volumeRepository.findAllByOrderByNameAsc()) {
            PoolRecord p = byId.get(v.getPoolId());
            volumesById.put(v.getId(), v);
            out.add(new Restorable(volumeRef(v), Set.of(ref(p)),
                    () -> {
                        volumes.assemble(v);
                        snapshots.assemble(v);
                    },
                    state -> registry.reserve(v.getName(), DeviceKind.VOLUME, state)));
        }
        // a volume's snapshots come back with it, before anything can write to it; these report them
        for (SnapshotRecord s : snapshotRepository.findAllByOrderByIdAsc()) {
            out.add(new Restorable(new Ref(DeviceKind.SNAPSHOT.label(), s.getName()),
                    Set.of(volumeRef(volumesById.get(s.getVolumeId()))), () -> snapshots.requireAssembled(s.getName()),
                    state -> snapshots.markUnavailable(s.getName(), state)));
        }
        return out;
    }

    private static Ref volumeRef(VolumeRecord v) {
        return new Ref(DeviceKind.VOLUME.label(), v.getName());
    }

    private static Ref ref(PoolRecord p) {
        return new Ref(PoolService.HOLDER_KIND, p.getName());
    }
}
