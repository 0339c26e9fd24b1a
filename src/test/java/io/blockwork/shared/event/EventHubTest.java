package io.blockwork.shared.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The hub alone: numbering, the ring and resume, filters, and consumers that fall behind. */
@Tag("unit")
class EventHubTest {

    private static final Duration NOW = Duration.ZERO;

    private static EventHub hub(int ring, int queue) {
        return new EventHub(new EventProperties(ring, queue, Duration.ofSeconds(15)));
    }

    private static Event.Draft disk(String name) {
        return Event.Draft.of(EventType.CREATED, EventKind.DISK, name);
    }

    private static List<StreamItem> drain(Subscription s) throws InterruptedException {
        List<StreamItem> out = new ArrayList<>();
        StreamItem i;
        while ((i = s.next(NOW)) != null) {
            out.add(i);
        }
        return out;
    }

    private static List<String> objects(List<StreamItem> items) {
        return items.stream().map(i -> ((StreamItem.Delivered) i).event().object()).toList();
    }

    @Test
    void idsIncreaseFromTheBootTimeInMicroseconds() {
        long before = System.currentTimeMillis() * 1000;
        EventHub hub = hub(8, 8);
        long after = System.currentTimeMillis() * 1000;
        Event a = hub.publish(disk("a"));
        Event b = hub.publish(disk("b"));
        // a later run starts above every id of this one unless this one averaged a million events a second
        assertThat(a.id()).isBetween(before, after);
        assertThat(b.id()).isEqualTo(a.id() + 1);
    }

    @Test
    void aConsumerResumingAfterAnIdGetsExactlyTheEventsItMissed() throws Exception {
        EventHub hub = hub(16, 16);
        Event seen = null;
        for (int i = 0; i < 5; i++) {
            Event e = hub.publish(disk("d" + i));
            if (i == 1) {
                seen = e;
            }
        }
        try (Subscription s = hub.subscribe(EventFilter.ALL, seen.id())) {
            hub.publish(disk("live"));
            assertThat(objects(drain(s))).containsExactly("d2", "d3", "d4", "live");
        }
    }

    @Test
    void anIdOlderThanTheRingOrFromAnotherRunStartsWithAReset() throws Exception {
        EventHub hub = hub(4, 16);
        Event first = hub.publish(disk("gone"));
        for (int i = 0; i < 10; i++) {
            hub.publish(disk("d" + i));
        }
        try (Subscription s = hub.subscribe(EventFilter.ALL, first.id())) {
            List<StreamItem> items = drain(s);
            assertThat(items).hasSize(1).first().isInstanceOf(StreamItem.Reset.class);
            StreamItem.Reset reset = (StreamItem.Reset) items.getFirst();
            assertThat(reset.lastEventId()).isEqualTo(hub.lastId());
            assertThat(reset.reason()).contains("no longer kept");
        }
        try (Subscription s = hub.subscribe(EventFilter.ALL, hub.lastId() + 1000)) {
            assertThat(drain(s)).singleElement().isInstanceOf(StreamItem.Reset.class);
        }
        // the newest id itself is fine: nothing was missed
        try (Subscription s = hub.subscribe(EventFilter.ALL, hub.lastId())) {
            assertThat(drain(s)).isEmpty();
        }
    }

    @Test
    void filtersKeepKindsAndAnObjectWithItsChildren() throws Exception {
        EventHub hub = hub(16, 16);
        try (Subscription arrays = hub.subscribe(new EventFilter(Set.of("member"), null), null);
             Subscription md0 = hub.subscribe(new EventFilter(Set.of(), "md0"), null)) {
            hub.publish(Event.Draft.of(EventType.CREATED, EventKind.ARRAY, "md0"));
            hub.publish(Event.Draft.of(EventType.FAILED, EventKind.MEMBER, "d2").parent("md0"));
            hub.publish(Event.Draft.of(EventType.CREATED, EventKind.MEMBER, "d9").parent("md9"));
            hub.publish(disk("d2"));
            assertThat(objects(drain(arrays))).containsExactly("d2", "d9");
            assertThat(objects(drain(md0))).containsExactly("md0", "d2");
        }
    }

    @Test
    void aConsumerThatNeverReadsIsCutOffWithAFinalItemAndNeverHoldsMoreThanItsQueue() throws Exception {
        EventHub hub = hub(64, 8);
        Subscription stuck = hub.subscribe(EventFilter.ALL, null);
        Subscription reader = hub.subscribe(EventFilter.ALL, null);
        List<String> read = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            hub.publish(disk("e" + i));
            assertThat(stuck.queued()).isLessThanOrEqualTo(9);
            read.addAll(objects(drain(reader)));
        }
        assertThat(read).hasSize(100);
        assertThat(stuck.ended()).isTrue();
        List<StreamItem> last = drain(stuck);
        assertThat(last).singleElement().isInstanceOf(StreamItem.Dropped.class);
        assertThat(hub.consumers()).isEqualTo(1);
        assertThat(hub.droppedConsumers()).isEqualTo(1);
        reader.close();
        assertThat(hub.consumers()).isZero();
    }

    @Test
    void closingTheHubEndsEveryStream() throws Exception {
        EventHub hub = hub(8, 8);
        Subscription s = hub.subscribe(EventFilter.ALL, null);
        hub.close();
        assertThat(drain(s)).singleElement().isInstanceOf(StreamItem.Ended.class);
        assertThat(drain(hub.subscribe(EventFilter.ALL, null))).singleElement().isInstanceOf(StreamItem.Ended.class);
    }
}
