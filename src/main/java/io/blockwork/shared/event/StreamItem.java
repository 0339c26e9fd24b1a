package io.blockwork.shared.event;

/** What an event stream consumer is handed next: an event, or a word about the stream itself. */
public sealed interface StreamItem {

    /** An event that matched the consumer's filter. */
    record Delivered(Event event) implements StreamItem {}

    /**
     * The events after the consumer's {@code Last-Event-ID} are no longer kept (or the id is from
     * another run): reload the state, then carry on from {@code lastEventId}.
     */
    record Reset(long lastEventId, String reason) implements StreamItem {}

    /** The last item: the consumer fell too far behind and is cut off. */
    record Dropped(String reason) implements StreamItem {}

    /** The last item: the service is stopping. */
    record Ended(String reason) implements StreamItem {}

    /** True for the items after which nothing more comes. */
    default boolean last() {
        return this instanceof Dropped || this instanceof Ended;
    }
}
