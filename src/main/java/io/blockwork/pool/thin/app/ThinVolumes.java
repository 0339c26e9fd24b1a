package io.blockwork.pool.thin.app;

import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.thin.Pool;
import io.blockwork.pool.thin.store.ThinPoolEntity;
import io.blockwork.pool.thin.store.ThinVolumeEntity;
import io.blockwork.pool.thin.store.ThinVolumeRepository;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.consistency.Records;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.pool.snapshot.app.SnapshotView;
import io.blockwork.pool.volume.app.VolumeView;
import java.util.List;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * Thin volume and snapshot records as every thin operation reads them, and how the API shows
 * them: a thin volume as a {@link VolumeView} of type {@code thin} (its virtual size, and what it
 * allocated: {@code lvs}' Data%), a thin snapshot as a {@link SnapshotView} of type {@code thin}.
 */
@Component
class ThinVolumes {

    private final ThinVolumeRepository repository;
    private final ThinPoolService pools;
    private final DeviceRegistry registry;

    ThinVolumes(ThinVolumeRepository repository, ThinPoolService pools, DeviceRegistry registry) {
        this.repository = repository;
        this.pools = pools;
        this.registry = registry;
    }

    /** Volume {@code name} (not a snapshot) of {@code pool}, or not-found. */
    ThinVolumeEntity volume(ThinPoolEntity pool, String name) {
        return repository.findByName(name).filter(v -> v.getThinPoolId() == pool.getId() && !v.snapshot())
                .orElseThrow(() -> ProblemException.notFound("volume in pool " + pool.getName(), name));
    }

    /** Snapshot {@code name} of {@code volume}, or not-found. */
    ThinVolumeEntity snapshot(ThinVolumeEntity volume, String name) {
        return repository.findByName(name).filter(s -> volume.getId().equals(s.getOriginId()))
                .orElseThrow(() -> ProblemException.notFound("snapshot of volume " + volume.getName(), name));
    }

    Optional<ThinVolumeEntity> find(String name) {
        return repository.findByName(name);
    }

    List<ThinVolumeEntity> snapshots(ThinVolumeEntity volume) {
        return repository.findAllByOriginIdOrderByIdAsc(volume.getId());
    }

    List<ThinVolumeEntity> volumes(ThinPoolEntity pool) {
        return repository.findAllByThinPoolIdAndOriginIdIsNullOrderByNameAsc(pool.getId());
    }

    List<ThinVolumeEntity> allVolumes() {
        return repository.findAllByOriginIdIsNullOrderByNameAsc();
    }

    ThinVolumeEntity save(ThinVolumeEntity r) {
        return Records.save(repository, r, (r.snapshot() ? "thin snapshot " : "thin volume ") + r.getName());
    }

    void delete(ThinVolumeEntity r) {
        repository.delete(r);
        repository.flush();
    }

    /* ---- views ---- */

    VolumeView view(ThinVolumeEntity v, ThinPoolEntity pool, boolean detail) {
        RegisteredDevice entry = local(v, pool);
        long chunk = pool.getBlockSizeBytes();
        long mapped = mappedBytes(v, pool);
        List<String> holders = entry == null ? List.of() : entry.holders().stream().map(Holder::toString).sorted().toList();
        String table = detail && entry != null ? entry.device(MappedDevice.class).map(MappedDevice::tableText).orElse(null)
                : null;
        List<String> snaps = snapshots(v).stream().map(ThinVolumeEntity::getName).toList();
        return new VolumeView(v.getName(), pool.getName(), v.getSizeBytes(), v.getSizeBytes() / chunk, chunk, 0,
                v.getName(), attributes(entry, pool), exports(entry), holders, snaps, state(entry, pool), v.getCreatedAt(),
                detail ? List.of() : null, table, pool.getNode(), VolumeView.THIN, Math.max(mapped, 0),
                mapped < 0 ? null : ThinPoolService.percent(mapped, v.getSizeBytes()));
    }

    SnapshotView snapshotView(ThinVolumeEntity s, ThinVolumeEntity volume, ThinPoolEntity pool, String stateOverride) {
        RegisteredDevice entry = local(s, pool);
        long chunk = pool.getBlockSizeBytes();
        long mapped = mappedBytes(s, pool);
        ObjectState state = state(entry, pool);
        String status = entry != null && entry.live() ? entry.device(MappedDevice.class)
                .map(d -> d.statusText().strip()).orElse(null) : null;
        return new SnapshotView(s.getName(), pool.getName(), volume.getName(), s.getSizeBytes(), s.getSizeBytes() / chunk,
                chunk, true, stateOverride != null ? stateOverride : state.actual(), state.reason(),
                mapped < 0 ? null : ThinPoolService.percent(mapped, s.getSizeBytes()), mapped < 0 ? null : mapped, null,
                null, exports(entry), status, s.getCreatedAt(), pool.getNode(), SnapshotView.THIN, s.getSource(),
                s.getSizeBytes());
    }

    /** The thin device's registry entry; null while not assembled or when the pool is another node's. */
    private RegisteredDevice local(ThinVolumeEntity v, ThinPoolEntity pool) {
        return pools.isLocal(pool) ? registry.find(v.getName()).orElse(null) : null;
    }

    /** Bytes of data blocks the thin device maps, or -1 when its pool is not active (or another node's). */
    private long mappedBytes(ThinVolumeEntity v, ThinPoolEntity pool) {
        Optional<Pool> p = pools.isLocal(pool) ? pools.engine(pool) : Optional.empty();
        return p.map(x -> x.metadata().mappedBlocks(v.getThinId()) * pool.getBlockSizeBytes()).orElse(-1L);
    }

    private ObjectState state(RegisteredDevice entry, ThinPoolEntity pool) {
        return !pools.isLocal(pool) ? ObjectState.onNode(pool.getNode())
                : entry == null ? ObjectState.failed("not assembled") : entry.state();
    }

    private static List<String> exports(RegisteredDevice entry) {
        return entry == null ? List.of() : entry.holderNames(Holder.EXPORT);
    }

    /**
     * lvs-style attributes of a thin volume or snapshot: {@code V} (thin volume), {@code w},
     * {@code i}, {@code -}, state {@code a}/{@code s}/{@code -}, open {@code o}/{@code -}, target
     * type {@code t} (thin), zeroing {@code z}/{@code -}, health and skip-activation {@code -}: an
     * unused active thin volume is {@code Vwi-a-tz--}.
     */
    static String attributes(RegisteredDevice entry, ThinPoolEntity pool) {
        MappedDevice d = entry == null ? null : entry.device(MappedDevice.class).orElse(null);
        char state = d == null ? '-' : d.state() == DeviceInfo.State.SUSPENDED ? 's' : 'a';
        boolean open = entry != null && (!entry.holders().isEmpty() || (d != null && d.info().openCount() > 0));
        return "Vwi-" + state + (open ? 'o' : '-') + 't' + (pool.isZeroNewBlocks() ? 'z' : '-') + "--";
    }
}
