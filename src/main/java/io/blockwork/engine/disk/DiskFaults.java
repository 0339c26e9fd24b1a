package io.blockwork.engine.disk;

/**
 * Error injection on a disk: requests of the chosen kinds fail with an I/O error without touching
 * the medium, as a dying drive would. For degraded-mode tests and demos.
 */
public record DiskFaults(boolean failReads, boolean failWrites, boolean failFlushes) {
    public static final DiskFaults NONE = new DiskFaults(false, false, false);
    public static final DiskFaults ALL = new DiskFaults(true, true, true);

    public boolean any() {
        return failReads || failWrites || failFlushes;
    }
}
