package planted;

import com.google.errorprone.annotations.concurrent.GuardedBy;

/** What the check accepts: the same counter, always read under its lock. */
class Guarded {
    private final Object lock = new Object();
    @GuardedBy("lock")
    private int count;

    void increment() {
        synchronized (lock) {
            count++;
        }
    }

    int read() {
        synchronized (lock) {
            return count;
        }
    }
}
