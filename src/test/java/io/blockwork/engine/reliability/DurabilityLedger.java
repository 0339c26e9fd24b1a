package io.blockwork.engine.reliability;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Records what the client learnt was durable, each with the log's entry count at that moment. A
 * log-writes target logs a write, flush or FUA before its completion reaches the client, so the
 * entries behind an acknowledgement are all below the count read after it: once a replay has
 * applied that many entries, the acknowledged generations must be on the image.
 */
final class DurabilityLedger implements VerifyingClient.DurabilityListener {

    record Ack(long entriesAtAck, int[] blocks, int[] generations) {}

    private final LongSupplier loggedEntries;
    private final List<Ack> acks = new ArrayList<>();

    DurabilityLedger(LongSupplier loggedEntries) {
        this.loggedEntries = loggedEntries;
    }

    @Override
    public void durable(int[] blocks, int[] generations) {
        Ack a = new Ack(loggedEntries.getAsLong(), blocks, generations);
        synchronized (acks) {
            acks.add(a);
        }
    }

    /** Every acknowledgement, by entry count. */
    List<Ack> acks() {
        synchronized (acks) {
            List<Ack> sorted = new ArrayList<>(acks);
            sorted.sort(Comparator.comparingLong(Ack::entriesAtAck));
            return sorted;
        }
    }
}
