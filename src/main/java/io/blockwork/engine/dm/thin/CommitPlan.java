package io.blockwork.engine.dm.thin;

import java.util.List;

/**
 * One commit, prepared under the metadata lock and carried out by {@link MetadataWriter}: the
 * nodes the closed transaction wrote (none of them reachable from the superblock on disk), the
 * superblock that makes them live, and what becomes reusable once it is durable. The nodes are
 * encoded by the writer, outside the lock: a closed transaction's nodes are read-only (a later
 * change shadows them), and their blocks stay taken until this commit is durable.
 *
 * @param writes the closed transaction's nodes
 * @param superblock the new block 0, or null if the metadata did not change (the commit only
 *        flushes the data device)
 * @param metadataFreed metadata blocks to release after the superblock is durable
 * @param dataFreed data blocks to release after the superblock is durable
 * @param changes the change count the commit covers
 */
record CommitPlan(List<Node> writes, byte[] superblock, long[] metadataFreed, long[] dataFreed, long changes) {

    static CommitPlan dataOnly(long changes) {
        return new CommitPlan(List.of(), null, new long[0], new long[0], changes);
    }

    boolean writesMetadata() {
        return superblock != null;
    }
}
