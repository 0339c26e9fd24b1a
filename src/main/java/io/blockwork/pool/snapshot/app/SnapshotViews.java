package io.blockwork.pool.snapshot.app;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.engine.dm.snapshot.SnapshotStatus;
import io.blockwork.engine.dm.snapshot.StoreType;
import io.blockwork.engine.dm.targets.Snapshots;
import io.blockwork.pool.store.PoolEntity;
import io.blockwork.pool.snapshot.store.SnapshotEntity;
import io.blockwork.pool.volume.store.VolumeEntity;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.assembly.ObjectState;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import java.util.List;
import org.springframework.stereotype.Component;

/** A snapshot's record and live devices as the API shows them ({@link SnapshotView}). */
@Component
class SnapshotViews {

    private final DeviceRegistry registry;
    private final NodeScope nodes;

    SnapshotViews(DeviceRegistry registry, NodeScope nodes) {
        this.registry = registry;
        this.nodes = nodes;
    }

    SnapshotView view(SnapshotEntity r, VolumeEntity volume, PoolEntity pool) {
        boolean local = nodes.isLocal(pool);
        RegisteredDevice entry = local ? registry.find(r.getName()).orElse(null) : null;
        long es = pool.getExtentSizeBytes();
        String state;
        String reason = null;
        SnapshotStatus status = null;
        SnapshotView.MergeProgress merge = null;
        String statusLine = null;
        if (!local) {
            ObjectState s = ObjectState.onNode(pool.getNode());
            state = s.actual();
            reason = s.reason();
        } else if (r.isMerging()) {
            state = "merging";
            MappedDevice v = registry.find(volume.getName(), MappedDevice.class).orElse(null);
            status = v == null ? null : Snapshots.status(v).orElse(null);
            if (status != null && status.state() == SnapshotStatus.State.MERGE_FAILED) {
                state = "merge-failed";
            }
            Long left = status == null ? null : status.exceptions();
            long start = r.getMergeExceptions();
            double percent = left == null ? 0 : start == 0 ? 100 : 100.0 * (start - Math.min(left, start)) / start;
            merge = new SnapshotView.MergeProgress(start, left, round(percent));
        } else if (entry != null && entry.live() && entry.device() instanceof MappedDevice d) {
            status = Snapshots.status(d).orElse(null);
            statusLine = d.statusText().strip();
            state = status == null ? "active" : switch (status.state()) {
                case VALID -> "active";
                case INVALID -> "invalid";
                case OVERFLOW -> "overflow";
                case MERGE_FAILED -> "merge-failed";
            };
        } else {
            ObjectState s = entry == null ? ObjectState.failed("not assembled") : entry.state();
            state = s.actual();
            reason = s.reason();
        }
        boolean known = status != null && status.state() == SnapshotStatus.State.VALID;
        List<String> exports = entry == null ? List.of() : entry.holderNames(Holder.EXPORT);
        return new SnapshotView(r.getName(), pool.getName(), volume.getName(), r.getExtentCount() * es,
                r.getExtentCount(), r.getChunkSectors() << 9, StoreType.PERSISTENT.code().equals(r.getStore()), state,
                reason, known ? round(status.fillPercent()) : null, known ? status.allocatedSectors() << 9 : null,
                known ? status.exceptions() : null, merge, exports, statusLine, r.getCreatedAt(), pool.getNode(), SnapshotView.COW,
                volume.getName(), volume.getExtentCount() * es);
    }

    private static double round(double percent) {
        return Math.round(percent * 100) / 100.0;
    }

}
