package io.blockwork.service.pool;

import io.blockwork.persistence.pool.PoolRecord;
import io.blockwork.persistence.pool.PoolRepository;
import io.blockwork.persistence.pool.VolumeRecord;
import io.blockwork.persistence.pool.VolumeRepository;
import io.blockwork.service.assembly.Ref;
import io.blockwork.service.assembly.Restorable;
import io.blockwork.service.assembly.RestorableSource;
import io.blockwork.service.device.DeviceKind;
import io.blockwork.service.device.DeviceRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * Pools and volumes at start-up: a pool after its device (it checks the device still holds every
 * extent and claims it again), each volume after its pool (its table is rebuilt from its
 * segments). A pool that cannot come back blocks its volumes; they keep their names.
 */
@Component
class PoolRestorer implements RestorableSource {

    private final PoolRepository poolRepository;
    private final VolumeRepository volumeRepository;
    private final PoolService pools;
    private final VolumeService volumes;
    private final DeviceRegistry registry;

    PoolRestorer(PoolRepository poolRepository, VolumeRepository volumeRepository, PoolService pools,
                 VolumeService volumes, DeviceRegistry registry) {
        this.poolRepository = poolRepository;
        this.volumeRepository = volumeRepository;
        this.pools = pools;
        this.volumes = volumes;
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
        for (VolumeRecord v : volumeRepository.findAllByOrderByNameAsc()) {
            PoolRecord p = byId.get(v.getPoolId());
            out.add(new Restorable(new Ref(DeviceKind.VOLUME.label(), v.getName()), Set.of(ref(p)),
                    () -> volumes.assemble(v),
                    state -> registry.reserve(v.getName(), DeviceKind.VOLUME, state)));
        }
        return out;
    }

    private static Ref ref(PoolRecord p) {
        return new Ref(PoolService.HOLDER_KIND, p.getName());
    }
}
