package io.blockwork.nbd;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The server's budget for request memory, and each connection's {@link Account} in it.
 *
 * <p>Design. An account may hold up to {@code cap} bytes. The first {@code reserved} bytes it
 * holds are its own (the connection's reservation); what it holds beyond them is borrowed from
 * one pool of {@code shared} bytes for the whole server. So with {@code f(x) = max(0, x - reserved)}
 * the pool's use is always at least the sum of {@code f(held)} over the accounts, and never more
 * than {@code shared}: a connection that the others crowd out of the pool still has its
 * reservation, and the server's request memory stays under connections × reserved + shared.
 *
 * <p>Hot path. A take that stays inside the reservation is one CAS on the account's counter; a
 * give is one CAS and a volatile read. Only bytes beyond the reservation touch the shared counter.
 * An account's held bytes move by CAS from an exact old value, and the pool moves by exactly
 * {@code f(new) - f(old)} of that transition (taken from the pool before the CAS, given back after
 * it), so the pool never under-counts, even while takes and gives race.
 *
 * <p>Waiting. Only a connection's reader takes, and it takes one request at a time; it parks when
 * it cannot. It registers before it checks again, so a give that lands in between unparks it: a
 * give wakes the account's own reader, and a give that returns bytes to the pool also wakes the
 * readers waiting for the pool (few, and only then, so a crowd of blocked attackers costs the
 * others nothing per request).
 */
final class MemoryBudget {

    private final long reserved;
    private final long cap;
    private final long shared;
    private final AtomicLong sharedUsed = new AtomicLong();
    /** Accounts whose reader is parked, waiting for the pool or its own replies. */
    private final Set<Account> waiting = ConcurrentHashMap.newKeySet();

    MemoryBudget(long reservedPerAccount, long capPerAccount, long shared) {
        if (reservedPerAccount > capPerAccount) {
            throw new IllegalArgumentException("reservation " + reservedPerAccount + " above the cap " + capPerAccount);
        }
        this.reserved = reservedPerAccount;
        this.cap = capPerAccount;
        this.shared = shared;
    }

    MemoryBudget(NbdLimits limits) {
        this(limits.reservedBytesPerConnection(), limits.maxInFlightBytes(), limits.sharedBytes());
    }

    Account open() {
        return new Account();
    }

    /** Bytes of the shared pool in use now. */
    long sharedInUse() {
        return sharedUsed.get();
    }

    long sharedCapacity() {
        return shared;
    }

    private long beyondReservation(long held) {
        return Math.max(0, held - reserved);
    }

    private boolean borrow(long bytes) {
        long used;
        do {
            used = sharedUsed.get();
            if (used + bytes > shared) {
                return false;
            }
        } while (!sharedUsed.compareAndSet(used, used + bytes));
        return true;
    }

    private void repay(long bytes) {
        sharedUsed.addAndGet(-bytes);
        for (Account a : waiting) {
            a.wake();
        }
    }

    /** One connection's share. {@link #take} is called by one thread (the reader); gives come from any. */
    final class Account {

        private final AtomicLong held = new AtomicLong();
        /** The reader while it is parked in {@link #take}, else null. */
        private volatile Thread parked;

        /** Takes {@code bytes} if the account and the pool allow it now. */
        boolean tryTake(long bytes) {
            while (true) {
                long before = held.get();
                long after = before + bytes;
                if (after > cap) {
                    return false;
                }
                long borrowed = beyondReservation(after) - beyondReservation(before);
                if (borrowed > 0 && !borrow(borrowed)) {
                    return false;
                }
                if (held.compareAndSet(before, after)) {
                    return true;
                }
                if (borrowed > 0) {
                    repay(borrowed); // a give changed the account meanwhile; try again from its new value
                }
            }
        }

        /**
         * Takes {@code bytes}, waiting until the account and the pool allow it. {@code beforeWaiting}
         * runs once before the first wait (the reader sends the replies it holds, which may be what
         * frees the budget).
         */
        void take(long bytes, Runnable beforeWaiting) throws InterruptedException {
            if (tryTake(bytes)) {
                return;
            }
            if (bytes > cap) {
                throw new IllegalArgumentException(bytes + " bytes can never fit an account of " + cap);
            }
            beforeWaiting.run();
            parked = Thread.currentThread();
            waiting.add(this);
            try {
                while (!tryTake(bytes)) {
                    LockSupport.park(this);
                    if (Thread.interrupted()) {
                        throw new InterruptedException("waiting for " + bytes + " bytes of NBD budget");
                    }
                }
            } finally {
                waiting.remove(this);
                parked = null;
            }
        }

        void give(long bytes) {
            long before;
            long after;
            do {
                before = held.get();
                after = before - bytes;
            } while (!held.compareAndSet(before, after));
            long repaid = beyondReservation(before) - beyondReservation(after);
            if (repaid > 0) {
                repay(repaid);
            } else {
                wake();
            }
        }

        private void wake() {
            Thread t = parked;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }

        /** Bytes held now (requests from header to reply sent). */
        long held() {
            return held.get();
        }

        /**
         * Gives back whatever the account still holds: called when its connection is gone, so a
         * request whose reply was never accounted for cannot keep budget for ever. Returns it.
         */
        long close() {
            long left = held.getAndSet(0);
            long repaid = beyondReservation(left);
            if (repaid > 0) {
                repay(repaid);
            }
            return left;
        }
    }
}
