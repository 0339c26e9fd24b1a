package io.blockwork.engine.md;

import io.blockwork.engine.event.EngineEvent;
import io.blockwork.engine.event.EngineListener;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Who is told what happens to one md array ({@link MdArray#onChange}, {@link MdArray#listen}),
 * and the telling: on an I/O completion, the daemon's or a caller's thread, holding no array
 * lock. A listener that throws is logged and breaks nothing.
 */
final class ArrayEvents {

    /** The array's current name (arrays can be renamed). */
    private final Supplier<String> name;
    /** Told after the array changed its members or finished its resync on its own. */
    private volatile Runnable changeListener = () -> {};
    /** Told what happens to the array, management calls included. */
    private volatile EngineListener listener = EngineListener.NONE;

    ArrayEvents(Supplier<String> name) {
        this.name = name;
    }

    void onChange(Runnable l) {
        this.changeListener = Objects.requireNonNull(l, "listener");
    }

    void listen(EngineListener l) {
        this.listener = Objects.requireNonNull(l, "listener");
    }

    /** Builds the event with the array's current name and tells the listener. */
    void publish(Function<String, EngineEvent> event) {
        EngineListener l = listener;
        if (l != EngineListener.NONE) {
            EngineListener.tell(l, event.apply(name.get()));
        }
    }

    /** The array changed on its own: tells the change listener, then publishes {@link EngineEvent.MembersChanged}. */
    void changed() {
        try {
            changeListener.run();
        } catch (RuntimeException e) {
            // A listener's failure must not break the I/O completion or the daemon that told it.
            System.getLogger(MdArray.class.getName()).log(System.Logger.Level.ERROR,
                    "change listener of " + name.get() + " failed", e);
        }
        publish(EngineEvent.MembersChanged::new);
    }
}
