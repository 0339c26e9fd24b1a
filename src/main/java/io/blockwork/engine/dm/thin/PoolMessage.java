package io.blockwork.engine.dm.thin;

import java.util.List;
import java.util.Locale;

/**
 * A {@code dmsetup message} to a thin pool, parsed (the kernel's {@code pool_message}): what it
 * asks for, with its arguments checked, before anything changes. {@link Pool#message} carries
 * it out.
 */
sealed interface PoolMessage {

    /** {@code create_thin <id>}. */
    record CreateThin(long dev) implements PoolMessage {}

    /** {@code create_snap <id> <origin id>}. */
    record CreateSnap(long dev, long origin) implements PoolMessage {}

    /** {@code delete <id>}. */
    record Delete(long dev) implements PoolMessage {}

    /** {@code set_transaction_id <current> <new>}. */
    record SetTransactionId(long current, long next) implements PoolMessage {}

    /** {@code reserve_metadata_snap}. */
    record ReserveMetadataSnap() implements PoolMessage {}

    /** {@code release_metadata_snap}. */
    record ReleaseMetadataSnap() implements PoolMessage {}

    /** Refuses an empty message (before the pool's mode is looked at, as the kernel does). */
    static void checkGiven(List<String> argv) throws ThinException {
        if (argv.isEmpty()) {
            throw new ThinException("no message given (create_thin, create_snap, delete, set_transaction_id,"
                    + " reserve_metadata_snap, release_metadata_snap)");
        }
    }

    /**
     * Parses a message that is not empty.
     *
     * @throws ThinException naming the unknown verb or the bad argument
     */
    static PoolMessage parse(List<String> argv) throws ThinException {
        return switch (argv.getFirst().toLowerCase(Locale.ROOT)) {
            case "create_thin" -> {
                args(argv, 2);
                yield new CreateThin(devId(argv.get(1)));
            }
            case "create_snap" -> {
                args(argv, 3);
                yield new CreateSnap(devId(argv.get(1)), devId(argv.get(2)));
            }
            case "delete" -> {
                args(argv, 2);
                yield new Delete(devId(argv.get(1)));
            }
            case "set_transaction_id" -> {
                args(argv, 3);
                yield new SetTransactionId(unsigned(argv.get(1), "id"), unsigned(argv.get(2), "new id"));
            }
            case "reserve_metadata_snap" -> {
                args(argv, 1);
                yield new ReserveMetadataSnap();
            }
            case "release_metadata_snap" -> {
                args(argv, 1);
                yield new ReleaseMetadataSnap();
            }
            default -> throw new ThinException("Unrecognised thin pool target message received: " + argv.getFirst());
        };
    }

    private static void args(List<String> argv, int n) throws ThinException {
        if (argv.size() != n) {
            throw new ThinException("Message received with " + argv.size() + " arguments instead of " + n
                    + " (" + argv.getFirst() + ")");
        }
    }

    private static long devId(String s) throws ThinException {
        long v = parseUnsigned(s);
        if (v < 0 || v > PoolMetadata.MAX_DEV_ID) {
            throw new ThinException("Message received with invalid device id: " + s + " (0.." + PoolMetadata.MAX_DEV_ID + ")");
        }
        return v;
    }

    private static long unsigned(String s, String what) throws ThinException {
        try {
            return Long.parseUnsignedLong(s);
        } catch (NumberFormatException e) {
            throw new ThinException("set_transaction_id message: Unrecognised " + what + " " + s);
        }
    }

    private static long parseUnsigned(String s) {
        if (s.isEmpty() || s.length() > 18 || !s.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Long.parseLong(s);
    }
}
