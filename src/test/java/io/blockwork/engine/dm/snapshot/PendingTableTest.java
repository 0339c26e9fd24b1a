package io.blockwork.engine.dm.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The pending table's hash keeps each bucket inside one group of complete buckets, which is what
 * lets {@code fine} guard a chunk's complete and pending buckets with one lock; and it still
 * spreads the chunks of one run over many buckets.
 */
@Tag("unit")
class PendingTableTest {

    @Test
    void aChunksPendingBucketIsInTheGroupOfItsCompleteBucket() {
        SplittableRandom random = new SplittableRandom(4);
        for (long chunks : new long[] {64, 1_000, 16_384, 262_144, 4L << 20}) {
            ExceptionTable complete = new ExceptionTable(ExceptionTable.bucketsFor(chunks));
            int groups = PendingTable.groupsFor(complete.bucketCount());
            PendingTable pending = new PendingTable(PendingTable.bucketsFor(complete.bucketCount()), groups);
            int lowBits = Integer.numberOfTrailingZeros(pending.bucketCount() / groups);
            for (int i = 0; i < 10_000; i++) {
                long chunk = random.nextLong(chunks);
                int pb = pending.bucket(chunk);
                assertThat(pb).isBetween(0, pending.bucketCount() - 1);
                assertThat(pb >>> lowBits).as("chunk %d of %d", chunk, chunks)
                        .isEqualTo(PendingTable.group(complete.bucket(chunk), groups));
            }
        }
    }

    @Test
    void theChunksOfOneRunSpreadOverEveryBucketOfTheirGroup() {
        for (int completeBuckets : new int[] {64, 1 << 14, 1 << 18}) {
            PendingTable pending = new PendingTable(PendingTable.bucketsFor(completeBuckets),
                    PendingTable.groupsFor(completeBuckets));
            Set<Integer> buckets = new HashSet<>();
            for (long chunk = 5 * 256; chunk < 6 * 256; chunk++) {
                buckets.add(pending.bucket(chunk));
            }
            assertThat(buckets).as("%d complete buckets", completeBuckets)
                    .hasSize(Math.min(256, pending.bucketCount() / PendingTable.groupsFor(completeBuckets)));
        }
    }

    @Test
    void findsAndForgetsPendingExceptionsSharingABucket() {
        PendingTable pending = new PendingTable(64, 64);
        PendingException a = new PendingException(3);
        PendingException b = new PendingException(3 + 64 * 256); // same group, same low bits
        assertThat(pending.bucket(a.oldChunk)).isEqualTo(pending.bucket(b.oldChunk));
        pending.insert(a);
        pending.insert(b);
        assertThat(pending.lookup(3)).isSameAs(a);
        assertThat(pending.lookup(3 + 64 * 256)).isSameAs(b);
        pending.remove(a);
        assertThat(pending.lookup(3)).isNull();
        assertThat(pending.lookup(3 + 64 * 256)).isSameAs(b);
    }
}
