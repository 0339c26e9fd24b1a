package io.blockwork.engine.md;

/**
 * raid4/5/6's stripe cache and how its writes went, as md's sysfs shows the first two.
 *
 * @param stripeCacheSize stripe heads the cache may hold (md's stripe_cache_size)
 * @param stripeCacheActive heads in use (md's stripe_cache_active)
 * @param stripeBytes bytes of each member one head covers
 * @param rmwStripes writes done by read-modify-write
 * @param rcwStripes writes done by reconstruct-write that had to read
 * @param fullStripeWrites writes that covered whole stripe heads and read nothing
 * @param batchedWrites requests that joined an earlier one's parity update
 * @param degradedReads reads rebuilt from the other members
 */
public record ParityStatus(int stripeCacheSize, int stripeCacheActive, int stripeBytes, long rmwStripes, long rcwStripes,
                           long fullStripeWrites, long batchedWrites, long degradedReads) {

    static ParityStatus of(Raid5 r) {
        return new ParityStatus(r.cache.capacity(), r.cache.active(), r.stripeBytes, r.rmwStripes.sum(), r.rcwStripes.sum(),
                r.fullStripes.sum(), r.batchedWrites.sum(), r.reconstructions.sum());
    }
}
