package io.blockwork.nbd;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A thread-safe, in-memory {@link ExportLookup}: the simplest registry of exports. */
public final class ExportTable implements ExportLookup {

    private final Map<String, NbdExport> byName = new ConcurrentHashMap<>();

    /** Adds an export; fails if the name is taken. */
    public ExportTable add(NbdExport export) {
        if (byName.putIfAbsent(export.name(), export) != null) {
            throw new IllegalArgumentException("an export named '" + export.name() + "' already exists");
        }
        return this;
    }

    /** Removes an export; connected clients stay until {@link NbdServer#disconnect(String)}. */
    public Optional<NbdExport> remove(String name) {
        return Optional.ofNullable(byName.remove(name));
    }

    @Override
    public Optional<NbdExport> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    @Override
    public List<NbdExport> list() {
        List<NbdExport> all = new ArrayList<>(byName.values());
        all.sort(Comparator.comparing(NbdExport::name));
        return all;
    }
}
