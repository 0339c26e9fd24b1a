package io.blockwork.engine.dm;

import io.blockwork.engine.block.Bio;

/** {@code per-target}: every target's map sees {@code numFlushBios} empty flushes (dm before 6.11). */
final class PerTargetFlush implements EmptyFlush {

    @Override
    public String label() {
        return "per-target";
    }

    @Override
    public void issue(Table table, Bio flush, Paths paths) {
        for (Table.Entry t : table.entries()) {
            int n = t.target().numFlushBios();
            for (int i = 0; i < n; i++) {
                paths.throughTarget(t, i, flush);
            }
        }
    }

    @Override
    public String toString() {
        return label();
    }
}
