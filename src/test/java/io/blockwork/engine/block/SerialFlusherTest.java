package io.blockwork.engine.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Deterministic, single-threaded checks of the merging rule: the media flush is held by the test. */
@Tag("unit")
class SerialFlusherTest {

    /** A media flush the test completes by hand; it numbers flushes in start order. */
    static final class HeldMedia implements MediaFlush {
        final List<Consumer<IoStatus>> running = new ArrayList<>();
        int started;

        @Override
        public void start(Consumer<IoStatus> done) {
            started++;
            running.add(done);
        }

        void completeOldest(IoStatus status) {
            running.removeFirst().accept(status);
        }
    }

    /** Remembers how many media flushes had started when it arrived and which one served it. */
    static final class Request implements Consumer<IoStatus> {
        final HeldMedia media;
        final int startedBeforeArrival;
        int servedBy = -1;
        IoStatus status;

        Request(HeldMedia media) {
            this.media = media;
            this.startedBeforeArrival = media.started;
        }

        @Override
        public void accept(IoStatus s) {
            status = s;
            servedBy = media.started - media.running.size();
        }
    }

    @Test
    void sixtyFourRequestsDuringAHeldFlushCostTwoMediaFlushes() {
        HeldMedia media = new HeldMedia();
        SerialFlusher flusher = new SerialFlusher(media, FlushMerging.MERGED);
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            Request r = new Request(media);
            requests.add(r);
            flusher.flush(r);
        }
        assertThat(media.started).as("only the first request starts a media flush").isEqualTo(1);

        media.completeOldest(IoStatus.OK);
        assertThat(requests.getFirst().status).isEqualTo(IoStatus.OK);
        assertThat(requests.subList(1, 64)).as("the rest arrived after flush 1 started")
                .allMatch(r -> r.status == null);
        assertThat(media.started).as("one flush for everything that waited").isEqualTo(2);

        media.completeOldest(IoStatus.OK);
        assertThat(requests).allMatch(r -> r.status == IoStatus.OK);
        assertThat(requests).allMatch(r -> r.servedBy > r.startedBeforeArrival);
        assertThat(flusher.mediaFlushes()).isEqualTo(2);
        assertThat(flusher.requests()).isEqualTo(64);
    }

    @Test
    void anIdleFlusherStartsAtOnceAndStopsWhenNothingWaits() {
        HeldMedia media = new HeldMedia();
        SerialFlusher flusher = new SerialFlusher(media, FlushMerging.MERGED);
        Request a = new Request(media);
        flusher.flush(a);
        media.completeOldest(IoStatus.OK);
        assertThat(a.status).isEqualTo(IoStatus.OK);
        assertThat(media.running).isEmpty();

        Request b = new Request(media);
        flusher.flush(b);
        assertThat(media.started).as("a later request gets a flush of its own").isEqualTo(2);
    }

    @Test
    void aFailedMediaFlushFailsExactlyTheRequestsItServed() {
        HeldMedia media = new HeldMedia();
        SerialFlusher flusher = new SerialFlusher(media, FlushMerging.MERGED);
        Request a = new Request(media);
        flusher.flush(a);
        Request b = new Request(media);
        flusher.flush(b);
        media.completeOldest(IoStatus.IO_ERROR);
        assertThat(a.status).isEqualTo(IoStatus.IO_ERROR);
        assertThat(b.status).as("b waits for a flush of its own").isNull();
        media.completeOldest(IoStatus.OK);
        assertThat(b.status).isEqualTo(IoStatus.OK);
    }

    @Test
    void inlineMediaFlushesDoNotRecurse() {
        // Each inline flush lets one more request arrive, as a busy system would; a recursive
        // implementation would need one stack frame per round.
        int[] rounds = {0};
        SerialFlusher[] self = new SerialFlusher[1];
        MediaFlush inline = done -> {
            if (++rounds[0] < 100_000) {
                self[0].flush(s -> {});
            }
            done.accept(IoStatus.OK);
        };
        self[0] = new SerialFlusher(inline, FlushMerging.MERGED);
        self[0].flush(s -> {});
        assertThat(rounds[0]).isEqualTo(100_000);
    }

    @Test
    void withMergingOffEveryRequestWaitsForAMediaFlushOfItsOwnOneAtATime() {
        HeldMedia media = new HeldMedia();
        SerialFlusher flusher = new SerialFlusher(media, FlushMerging.OFF);
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            Request r = new Request(media);
            requests.add(r);
            flusher.flush(r);
        }
        for (int i = 0; i < 64; i++) {
            assertThat(media.running).as("one media flush at a time").hasSize(1);
            media.completeOldest(IoStatus.OK);
            assertThat(requests.get(i).status).isEqualTo(IoStatus.OK);
            assertThat(requests.stream().filter(r -> r.status != null)).hasSize(i + 1);
        }
        assertThat(flusher.mediaFlushes()).isEqualTo(64);
    }
}
