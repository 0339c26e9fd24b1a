package io.blockwork.engine.dm.targets.mirror;

/** A mirror region's state, as dm-region-hash names them. */
public enum RegionState {
    /** In sync, recorded clean in the log, nothing in flight. */
    CLEAN,
    /** In sync; writes are in flight or were recently, and the log has it marked. */
    DIRTY,
    /** The legs may differ; writes go to the default leg until recovery copies it. */
    NOSYNC,
    /** Being copied from the default leg; writes to it wait. */
    RECOVERING
}
