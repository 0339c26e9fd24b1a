package io.blockwork.shared.event;

import io.blockwork.nbd.NbdClient;
import io.blockwork.nbd.NbdServer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.stereotype.Component;

/**
 * NBD clients coming and going, as {@code connected} and {@code disconnected} events of their
 * export; and the requests served by clients already gone, per export, so that an export's
 * request counter only ever grows (the metrics add the connected clients' counts to it).
 */
@Component
public class ExportClientEvents implements NbdServer.Listener {

    private final EventHub hub;
    private final Map<String, LongAdder> servedByGoneClients = new ConcurrentHashMap<>();

    public ExportClientEvents(EventHub hub) {
        this.hub = hub;
    }

    @Override
    public void connected(NbdClient client) {
        hub.publish(Event.Draft.of(EventType.CONNECTED, EventKind.EXPORT, client.exportName()).data(data(client)));
    }

    @Override
    public void disconnected(NbdClient client) {
        servedByGoneClients.computeIfAbsent(client.exportName(), k -> new LongAdder()).add(client.requestsServed());
        hub.publish(Event.Draft.of(EventType.DISCONNECTED, EventKind.EXPORT, client.exportName()).data(data(client)));
    }

    /** Requests answered to clients of {@code export} that have disconnected. */
    public long servedByGoneClients(String export) {
        LongAdder n = servedByGoneClients.get(export);
        return n == null ? 0 : n.sum();
    }

    private static Map<String, Object> data(NbdClient c) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("client", c.id());
        d.put("remoteAddress", String.valueOf(c.remoteAddress()));
        d.put("requestsServed", c.requestsServed());
        return d;
    }
}
