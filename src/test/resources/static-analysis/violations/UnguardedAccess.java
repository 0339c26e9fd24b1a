package planted;

import com.google.errorprone.annotations.concurrent.GuardedBy;

/** Planted: a field read without the lock its annotation names. */
class UnguardedAccess {
    private final Object lock = new Object();
    @GuardedBy("lock")
    private int count;

    void increment() {
        synchronized (lock) {
            count++;
        }
    }

    int peek() {
        return count;
    }
}
