package io.blockwork.engine.event;

/**
 * Who the engine tells what happens to its objects on their own: a member failing on an I/O error,
 * a resync, recovery or check starting, progressing and ending. The service's event hub listens;
 * the engine knows nothing about who that is (no Spring, no JSON here).
 *
 * <p>Listeners are called on I/O completion threads and md daemon threads, holding no engine
 * lock. They must return quickly and never block: hand anything slow to another thread. A
 * listener that throws is logged and otherwise ignored; it cannot break the I/O that told it.
 */
@FunctionalInterface
public interface EngineListener {

    EngineListener NONE = event -> { };

    void on(EngineEvent event);

    /** Tells {@code listener}, logging instead of passing on what it throws. */
    static void tell(EngineListener listener, EngineEvent event) {
        try {
            listener.on(event);
        } catch (RuntimeException e) {
            System.getLogger(EngineListener.class.getName()).log(System.Logger.Level.ERROR,
                    "engine listener failed on " + event, e);
        }
    }
}
