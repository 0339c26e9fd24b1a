package io.blockwork.shared.assembly;

import java.time.Instant;
import java.util.List;

/**
 * What start-up assembly did, object by object, in the order it assembled them.
 *
 * @param startedAt null until assembly has run
 */
public record AssemblyReport(Instant startedAt, Instant finishedAt, List<AssembledObject> objects) {

    public static final AssemblyReport NOT_RUN = new AssemblyReport(null, null, List.of());

    public record AssembledObject(String kind, String name, List<String> dependsOn, ObjectState state) {}
}
