package io.blockwork.export.app;

import io.blockwork.nbd.NbdServerStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * The NBD server's part of {@code /actuator/health} (component {@code nbd}). DOWN, with the
 * reason, when the server is not running or not accepting, or when any of its threads met an
 * unexpected error (a bug, an OutOfMemoryError): the server confines such an error and goes on,
 * but the process is no longer to be trusted blindly, so it stays DOWN until a restart. The
 * details (shown to signed-in users) say how many clients are connected and refused and how much
 * request memory they hold against its bound.
 */
@Component
class NbdHealthIndicator implements HealthIndicator {

    private final NbdServerLifecycle nbd;

    NbdHealthIndicator(NbdServerLifecycle nbd) {
        this.nbd = nbd;
    }

    @Override
    public Health health() {
        NbdServerStatus s = nbd.status();
        Map<String, Object> details = new LinkedHashMap<>();
        nbd.endpoint().ifPresent(e -> details.put("listening", e.address() + ":" + e.port()));
        details.put("tls", s.tls());
        details.put("connections", s.connections());
        details.put("maxConnections", s.maxConnections());
        details.put("refusedConnections", s.refusedConnections());
        details.put("stalledClientsDropped", s.stalledClientsDropped());
        details.put("bytesInFlight", s.bytesInFlight());
        details.put("sharedBytesInUse", s.sharedBytesInUse());
        details.put("pooledBytes", s.pooledBytes());
        details.put("memoryBoundBytes", s.memoryBound());
        details.put("acceptLoopRestarts", s.acceptLoopRestarts());
        details.put("failures", s.failures());
        if (s.lastFailure() != null) {
            details.put("lastFailure", Map.of("at", s.lastFailure().at().toString(), "where", s.lastFailure().where(),
                    "error", s.lastFailure().error()));
        }
        if (s.healthy()) {
            return Health.up().withDetails(details).build();
        }
        return Health.down().withDetail("reason", reason(s)).withDetails(details).build();
    }

    private static String reason(NbdServerStatus s) {
        if (!s.running()) {
            return "the NBD server is not running";
        }
        if (!s.accepting()) {
            return "the NBD server's accept loop is not running";
        }
        NbdServerStatus.Failure f = s.lastFailure();
        return s.failures() + " unexpected failure(s) in NBD server threads, the latest in " + f.where() + " at "
                + f.at() + ": " + f.error() + "; restart the service (the log has the stack trace)";
    }
}
