package io.blockwork.engine.md;

/**
 * A raid4/5/6 write journal as the detail shows it.
 *
 * @param device the journal's device
 * @param usedBytes journal space holding records not yet checkpointed
 * @param records stripe writes logged since the array started
 * @param checkpoints times the members were flushed and the space reused
 * @param failed the journal failed a write or a checkpoint; the array refuses writes until assembled again
 * @param pinned a stripe write failed on the members after its record: the journal keeps every record
 *     from there on for the next assembly's replay and takes no checkpoint until then, so writes are
 *     refused once it is full
 */
public record JournalStatus(String device, long sizeBytes, long usedBytes, long records, long checkpoints, boolean failed,
                            boolean pinned) {}
