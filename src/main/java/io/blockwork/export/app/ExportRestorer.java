package io.blockwork.export.app;

import io.blockwork.export.store.ExportEntity;
import io.blockwork.export.store.ExportRepository;
import io.blockwork.shared.node.NodeScope;
import io.blockwork.shared.assembly.Ref;
import io.blockwork.shared.assembly.Restorable;
import io.blockwork.shared.assembly.RestorableSource;
import java.util.List;
import java.util.Set;
import org.springframework.stereotype.Component;

/**
 * Exports at start-up, each after its device. An export whose device is missing or not active
 * is reported with the reason (naming the device) and keeps its name; the NBD server starts
 * after assembly, so clients never see a half-restored table.
 */
@Component
class ExportRestorer implements RestorableSource {

    /** Only this node's objects are assembled here; other nodes' instances assemble theirs. */
    private final NodeScope nodes;

    private final ExportRepository repository;
    private final ExportService exports;

    ExportRestorer(ExportRepository repository, ExportService exports, NodeScope nodes) {
        this.nodes = nodes;
        this.repository = repository;
        this.exports = exports;
    }

    @Override
    public List<Restorable> restorables() {
        return nodes.local(repository.findAllByOrderByNameAsc()).stream().map(this::restorable).toList();
    }

    private Restorable restorable(ExportEntity record) {
        return new Restorable(new Ref(ExportService.HOLDER_KIND, record.getName()),
                Set.of(new Ref(record.getDeviceKind(), record.getDeviceName())),
                () -> exports.assemble(record),
                state -> exports.markUnavailable(record, state));
    }
}
