package io.blockwork.shared.assembly;

import io.blockwork.shared.consistency.ManagementOperations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.stereotype.Component;

/**
 * Rebuilds the live engine from the database when the service starts, before it takes requests:
 * every feature's objects together, in dependency order, so an array comes after its disks and a
 * volume after its pool whatever feature owns them.
 *
 * <p>An object that cannot be assembled (its file is gone, a member is missing) is marked with
 * the reason, and so is everything that depends on it; the service starts regardless, so the
 * user can see and repair the damage through the API.
 */
@Component
public class StartupAssembler implements SmartInitializingSingleton {

    private static final System.Logger LOG = System.getLogger(StartupAssembler.class.getName());

    private final List<RestorableSource> sources;
    private final ManagementOperations management;
    private volatile AssemblyReport report = AssemblyReport.NOT_RUN;

    public StartupAssembler(List<RestorableSource> sources, ManagementOperations management) {
        this.sources = sources;
        this.management = management;
    }

    /**
     * Runs once, when every bean exists (the database is migrated) and before any lifecycle
     * starts, so the web server takes no request until the engine is rebuilt. Not a
     * {@code SmartLifecycle}: a stop and restart of the context must not assemble again.
     */
    @Override
    public void afterSingletonsInstantiated() {
        management.exclusively(() -> report = assemble(sources));
    }

    public AssemblyReport report() {
        return report;
    }

    static AssemblyReport assemble(List<RestorableSource> sources) {
        Instant started = Instant.now();
        List<Restorable> all = new ArrayList<>();
        sources.forEach(s -> all.addAll(s.restorables()));
        AssemblyOrder order = AssemblyOrder.of(all);
        Map<Ref, ObjectState> states = new HashMap<>();
        List<AssemblyReport.AssembledObject> items = new ArrayList<>();
        for (Restorable r : order.ordered()) {
            ObjectState state = assembleOne(r, states);
            record(r, state, states, items);
        }
        for (Restorable r : order.onCycle()) {
            record(r, ObjectState.blocked("its dependencies form a cycle"), states, items);
        }
        long down = items.stream().filter(i -> !i.state().live()).count();
        LOG.log(down == 0 ? System.Logger.Level.INFO : System.Logger.Level.WARNING,
                "assembled {0} objects, {1} not active", items.size() - down, down);
        return new AssemblyReport(started, Instant.now(), List.copyOf(items));
    }

    private static ObjectState assembleOne(Restorable r, Map<Ref, ObjectState> states) {
        for (Ref dep : r.dependsOn().stream().sorted(Comparator.comparing(Ref::toString)).toList()) {
            ObjectState depState = states.get(dep);
            if (depState == null) {
                return ObjectState.blocked("needs " + dep + ", which is not configured");
            }
            if (!depState.live()) {
                return ObjectState.blocked("needs " + dep + ", which is " + depState.actual());
            }
        }
        try {
            r.assemble().run();
            return ObjectState.RUNNING;
        } catch (RuntimeException e) {
            String reason = Objects.requireNonNullElse(e.getMessage(), e.getClass().getSimpleName());
            LOG.log(System.Logger.Level.WARNING, "cannot assemble " + r.ref() + ": " + reason, e);
            return ObjectState.failed(reason);
        }
    }

    private static void record(Restorable r, ObjectState state, Map<Ref, ObjectState> states,
                               List<AssemblyReport.AssembledObject> items) {
        if (!state.live()) {
            r.unavailable().accept(state);
        }
        states.put(r.ref(), state);
        items.add(new AssemblyReport.AssembledObject(r.ref().kind(), r.ref().name(),
                r.after().stream().map(Ref::toString).sorted().toList(), state));
    }
}
