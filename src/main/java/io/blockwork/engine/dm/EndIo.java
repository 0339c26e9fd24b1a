package io.blockwork.engine.dm;

import io.blockwork.engine.block.IoStatus;

/** What a target's {@link Target#endIo} decided about a completed bio (the kernel's {@code DM_ENDIO_*}). */
public sealed interface EndIo {

    /** Pass the bio's outcome on to the submitter with {@code status}. */
    record Done(IoStatus status) implements EndIo {}

    /**
     * Push the bio back: during a {@code noflush} suspend it is kept and mapped again after resume;
     * otherwise it fails with {@link IoStatus#IO_ERROR}. A target that holds bios back (a mirror
     * waiting for a leg, a path that may return) completes them and answers this from its
     * presuspend on, so that suspend need not wait for them.
     */
    record Requeue() implements EndIo {}

    EndIo REQUEUE = new Requeue();

    /** The (shared) decision to pass {@code status} on. */
    static EndIo done(IoStatus status) {
        return Cache.DONE[status.ordinal()];
    }

    /** Interned {@link Done} values, so completions allocate nothing. */
    final class Cache {
        private static final EndIo[] DONE = new EndIo[IoStatus.values().length];

        static {
            for (IoStatus s : IoStatus.values()) {
                DONE[s.ordinal()] = new Done(s);
            }
        }

        private Cache() {}
    }
}
