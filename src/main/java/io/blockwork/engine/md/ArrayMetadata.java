package io.blockwork.engine.md;

import io.blockwork.engine.md.metadata.WriteIntentBitmap;

/**
 * What an array's on-disk metadata asks of the I/O path and the sync daemon: md_write_start and
 * md_write_end (the clean/active transitions), the bitmap's startwrite and endwrite, holding
 * completions until member failures are recorded (MD_SB_CHANGE_PENDING), and the daemon's
 * checkpoints. {@link #NONE} is an array without metadata, where all of it costs nothing.
 *
 * <p>Offsets are in the level's sync range (array bytes for raid1 and raid10).
 */
sealed interface ArrayMetadata permits ArrayMetadata.None, MemberSuperblocks {

    ArrayMetadata NONE = new None();

    /**
     * A write (discard, write-zeroes) to {@code [offset, offset+length)} may go to the members once
     * {@code proceed} runs: at once, or after the superblocks say the array is active, no member
     * failure is unrecorded and the write's bitmap bits are durable.
     */
    void startWrite(long offset, long length, Runnable proceed);

    /** The write has ended on the members; {@code everyCopy} false if some copy was not written. */
    void endWrite(long offset, long length, boolean everyCopy);

    /** True while some member failure is not yet recorded in the survivors' superblocks. */
    boolean failurePending();

    /** Runs {@code then} once every member failure so far is recorded (at once if there is none pending). */
    void afterFailuresRecorded(Runnable then);

    /** The write-intent bitmap, or null. */
    WriteIntentBitmap bitmap();

    /** The daemon's progress is worth recording (recovery_offset, resync_offset); blocks until it is. */
    void checkpoint();

    /** {@code m} is about to be rebuilt in a slot: it gets the bitmap and a superblock; blocks until it has. */
    void joinedSlot(Member m);

    /** Stops the metadata's thread after recording the array clean (when no write is in flight). */
    void stop();

    /** The superblocks' event count; 0 without metadata. */
    long events();

    /** Arrays without metadata: nothing to record, nothing to wait for. */
    final class None implements ArrayMetadata {
        private None() {}

        @Override
        public void startWrite(long offset, long length, Runnable proceed) {
            proceed.run();
        }

        @Override
        public void endWrite(long offset, long length, boolean everyCopy) {
        }

        @Override
        public boolean failurePending() {
            return false;
        }

        @Override
        public void afterFailuresRecorded(Runnable then) {
            then.run();
        }

        @Override
        public WriteIntentBitmap bitmap() {
            return null;
        }

        @Override
        public void checkpoint() {
        }

        @Override
        public void joinedSlot(Member m) {
        }

        @Override
        public void stop() {
        }

        @Override
        public long events() {
            return 0;
        }
    }
}
