package io.blockwork.engine.md;

/**
 * A raid4/5/6 write journal as the detail shows it.
 *
 * @param device the journal's device
 * @param usedBytes journal space holding records not yet checkpointed
 * @param records stripe writes logged since the array started
 * @param checkpoints times the members were flushed and the space reused
 * @param failed the journal failed a write or a checkpoint; the array refuses writes until assembled again
 */
public record JournalStatus(String device, long sizeBytes, long usedBytes, long records, long checkpoints, boolean failed) {}
