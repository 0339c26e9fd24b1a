package io.blockwork.engine.block;

import java.util.function.Consumer;

/**
 * The engine's one PREFLUSH rule, blk-flush's sequence: a request carrying PREFLUSH is an empty
 * flush of the device first and, once that flush completed, the request itself without
 * PREFLUSH. A failed flush fails the request and its data is never written.
 *
 * <p>Why the data waits: a journal's commit record is a PREFLUSH|FUA write. If its data went down
 * beside the flush, the FUA record could be durable before the flush made the journal blocks
 * under it durable, and a power cut in between would leave a commit with no journal. Waiting costs
 * one flush round trip, which only PREFLUSH writes pay.
 *
 * <p>{@link AbstractBlockDevice#submit} applies it to every device before anything else sees the
 * request, so no device, md level or dm target handles PREFLUSH itself: each only serves empty
 * flushes its own way (a disk's flush sequence, an array's member fan-out, a table's empty-flush
 * strategy) and data requests that carry no PREFLUSH.
 */
public final class Preflush {

    private Preflush() {}

    /**
     * Sends {@code bio}'s empty flush to {@code flush}, and its data (a chained child, without
     * PREFLUSH, same range and FUA) to {@code data} once the flush completed successfully.
     */
    static void submit(Bio bio, Consumer<Bio> flush, Consumer<Bio> data) {
        flush.accept(bio.derive(BioOp.FLUSH, 0, 0, 0, BioFlags.NONE, done -> {
            if (!done.status().ok()) {
                bio.endio(done.status());
                return;
            }
            data.accept(bio.chainChild(bio.op(), bio.offset(), bio.length(), 0, bio.flags().withPreflush(false)));
            bio.endio();
        }));
    }
}
