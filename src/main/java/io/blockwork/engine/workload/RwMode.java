package io.blockwork.engine.workload;

import io.blockwork.engine.block.Labelled;

/** fio's {@code rw=}: the I/O pattern of a job. */
public enum RwMode implements Labelled {
    READ(false, true, false),
    WRITE(false, false, true),
    RANDREAD(true, true, false),
    RANDWRITE(true, false, true),
    RANDRW(true, true, true);

    private final boolean random;
    private final boolean reads;
    private final boolean writes;

    RwMode(boolean random, boolean reads, boolean writes) {
        this.random = random;
        this.reads = reads;
        this.writes = writes;
    }

    public boolean random() {
        return random;
    }

    public boolean reads() {
        return reads;
    }

    public boolean writes() {
        return writes;
    }

    public static RwMode fromLabel(String label) {
        return Labelled.parse(RwMode.class, label, "rw mode");
    }
}
