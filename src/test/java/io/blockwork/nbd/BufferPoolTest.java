package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Connection pools and the server's spares: reuse across connections, and the caps on what is kept idle. */
@Tag("unit")
class BufferPoolTest {

    private static final int MAX_BLOCK = 32 << 20;
    private static final long CAP = 1 << 20;

    @Test
    void aConnectionTakesTheBuffersAnEndedConnectionLeftInsteadOfMappingNewOnes() {
        BufferPool spares = new BufferPool(MAX_BLOCK, CAP);
        BufferPool first = new BufferPool(MAX_BLOCK, CAP, spares);
        BufferPool.Payload a = first.take(256 << 10);
        BufferPool.Payload b = first.take(256 << 10);
        long addressA = a.segment().address();
        first.give(a);
        first.give(b);
        first.close(); // the connection ends: its idle buffers become spares
        assertThat(first.idleBytes()).isZero();
        assertThat(spares.idleBytes()).isEqualTo(512 << 10);

        BufferPool next = new BufferPool(MAX_BLOCK, CAP, spares);
        BufferPool.Payload again = next.take(200 << 10); // the same size class
        assertThat(again.length()).isEqualTo(200 << 10);
        assertThat(again.segment().byteSize()).isEqualTo(200 << 10);
        assertThat(spares.idleBytes()).as("one spare taken").isEqualTo(256 << 10);
        assertThat(again.segment().address()).isIn(addressA, b.segment().address());
        BufferPool.Payload small = next.take(4096); // no spare of this class: a new buffer
        assertThat(spares.idleBytes()).isEqualTo(256 << 10);
        next.give(again);
        next.give(small);
    }

    @Test
    void sparesKeepNoMoreThanTheirCapAndFreeTheRest() {
        BufferPool spares = new BufferPool(MAX_BLOCK, CAP);
        BufferPool conn = new BufferPool(MAX_BLOCK, 4 * CAP, spares);
        BufferPool.Payload[] held = new BufferPool.Payload[3];
        for (int i = 0; i < held.length; i++) {
            held[i] = conn.take((int) CAP);
        }
        for (BufferPool.Payload p : held) {
            conn.give(p);
        }
        assertThat(conn.idleBytes()).isEqualTo(3 * CAP);
        conn.close();
        assertThat(spares.idleBytes()).as("one buffer's worth kept, two freed").isEqualTo(CAP);
        assertThat(held[1].segment().byteSize()).isEqualTo(CAP);
    }

    @Test
    void aConnectionOverItsOwnCapOffersTheBufferToTheSpares() {
        BufferPool spares = new BufferPool(MAX_BLOCK, CAP);
        BufferPool conn = new BufferPool(MAX_BLOCK, 64 << 10, spares);
        BufferPool.Payload big = conn.take(128 << 10);
        conn.give(big);
        assertThat(conn.idleBytes()).isZero();
        assertThat(spares.idleBytes()).isEqualTo(128 << 10);
    }

    @Test
    void closedSparesFreeWhatTheyHadAndWhatComesLater() {
        BufferPool spares = new BufferPool(MAX_BLOCK, CAP);
        BufferPool conn = new BufferPool(MAX_BLOCK, CAP, spares);
        BufferPool.Payload early = conn.take(4096);
        BufferPool.Payload late = conn.take(4096);
        conn.give(early);
        conn.close();
        assertThat(spares.idleBytes()).isEqualTo(4096);
        spares.close(); // the server stopped
        assertThat(spares.idleBytes()).isZero();
        conn.give(late); // a request answered after the server stopped
        assertThat(spares.idleBytes()).isZero();
        assertThat(conn.idleBytes()).isZero();
    }
}
