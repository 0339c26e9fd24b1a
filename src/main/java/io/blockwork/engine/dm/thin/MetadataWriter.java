package io.blockwork.engine.dm.thin;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.engine.block.Plug;
import io.blockwork.engine.block.SyncIo;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one writer of the metadata device, which orders a commit against the data it describes:
 * <ol>
 *   <li>flush the data device, so every block a new mapping names holds its data (dm-thin's
 *       {@code metadata_pre_commit_callback});
 *   <li>write the transaction's nodes, all at once (they are fresh blocks the superblock on disk
 *       does not reach, so their order does not matter and a crash half-way loses nothing);
 *   <li>write the superblock with PREFLUSH (the nodes are durable before it) and FUA (it is
 *       durable when the write completes).
 * </ol>
 * Blocking: it runs on the pool's worker thread, one commit at a time.
 */
final class MetadataWriter {

    private static final BioFlags SUPERBLOCK = BioFlags.of(true, true, true);

    private MetadataWriter() {}

    /** Carries out {@code plan}; {@code data} may be null (a format, with no data yet). Returns the first failure, or OK. */
    static IoStatus commit(BlockDevice data, BlockDevice metadata, CommitPlan plan) {
        if (data != null) {
            IoStatus s = SyncIo.execute(data, BioOp.FLUSH, 0, 0, BioFlags.NONE, null);
            if (!s.ok()) {
                return s;
            }
        }
        if (!plan.writesMetadata()) {
            return IoStatus.OK;
        }
        IoStatus s = writeAll(metadata, plan);
        if (!s.ok()) {
            return s;
        }
        return SyncIo.execute(metadata, BioOp.WRITE, 0, MetadataBlock.SIZE, SUPERBLOCK,
                MemorySegment.ofArray(plan.superblock()));
    }

    private static IoStatus writeAll(BlockDevice metadata, CommitPlan plan) {
        CountDownLatch left = new CountDownLatch(plan.writes().size());
        AtomicReference<IoStatus> first = new AtomicReference<>(IoStatus.OK);
        for (Node n : plan.writes()) {
            metadata.submit(Bio.write(n.block << MetadataBlock.SHIFT, MemorySegment.ofArray(n.encode()), BioFlags.NONE,
                    b -> {
                        if (!b.status().ok()) {
                            first.compareAndSet(IoStatus.OK, b.status());
                        }
                        left.countDown();
                    }));
        }
        Plug.flushCurrent();
        try {
            left.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return IoStatus.IO_ERROR;
        }
        return first.get();
    }
}
