package io.blockwork.engine.block;

/**
 * Request flags, as the kernel's REQ_PREFLUSH, REQ_FUA and REQ_SYNC.
 *
 * <p>The eight combinations are interned, so changing a flag never allocates.
 *
 * @param preflush flush the device's volatile cache before this write completes
 * @param fua this write is durable when it completes (forced unit access)
 * @param sync a waiter is about to block on this request: do not hold it back in a plug
 */
public record BioFlags(boolean preflush, boolean fua, boolean sync) {

    private static final BioFlags[] ALL = new BioFlags[8];

    static {
        for (int i = 0; i < 8; i++) {
            ALL[i] = new BioFlags((i & 1) != 0, (i & 2) != 0, (i & 4) != 0);
        }
    }

    public static final BioFlags NONE = of(false, false, false);
    public static final BioFlags FUA = of(false, true, false);
    public static final BioFlags PREFLUSH = of(true, false, false);
    public static final BioFlags SYNC = of(false, false, true);

    public static BioFlags of(boolean preflush, boolean fua, boolean sync) {
        return ALL[(preflush ? 1 : 0) | (fua ? 2 : 0) | (sync ? 4 : 0)];
    }

    public BioFlags withPreflush(boolean on) {
        return of(on, fua, sync);
    }

    public BioFlags withFua(boolean on) {
        return of(preflush, on, sync);
    }

    public BioFlags withSync(boolean on) {
        return of(preflush, fua, on);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        if (preflush) s.append("PREFLUSH|");
        if (fua) s.append("FUA|");
        if (sync) s.append("SYNC|");
        return s.isEmpty() ? "NONE" : s.substring(0, s.length() - 1);
    }
}
