package io.blockwork.engine.md;

import java.util.Objects;

/**
 * What raid4/5/6 add to an array's spec: the layout (md's algorithm) and the stripe cache's size
 * in stripe heads (md's {@code stripe_cache_size}, default 256).
 */
public record ParitySpec(ParityLayout layout, int stripeCacheSize) {

    public ParitySpec {
        Objects.requireNonNull(layout, "layout");
        StripeCache.check(stripeCacheSize);
    }

    public static ParitySpec defaults(MdLevel level) {
        return new ParitySpec(ParityLayout.defaultFor(level), StripeCache.DEFAULT_SIZE);
    }

    public ParitySpec withLayout(ParityLayout l) {
        return new ParitySpec(l, stripeCacheSize);
    }

    public ParitySpec withStripeCacheSize(int size) {
        return new ParitySpec(layout, size);
    }
}
