package io.blockwork.engine.dm;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;

/**
 * {@code per-device}: when the table's targets all let flushes bypass their map (linear,
 * striped), one empty flush to each distinct underlying device, however many targets share it;
 * otherwise the {@code per-target} fan-out, since such targets may need their flushes (a
 * mirror's log, a snapshot's exception store).
 */
final class PerDeviceFlush implements EmptyFlush {

    @Override
    public String label() {
        return "per-device";
    }

    @Override
    public void issue(Table table, Bio flush, Paths paths) {
        if (!table.flushBypassesMap()) {
            PER_TARGET.issue(table, flush, paths);
            return;
        }
        for (BlockDevice d : table.devices()) {
            paths.toDevice(d, flush);
        }
    }

    @Override
    public String toString() {
        return label();
    }
}
