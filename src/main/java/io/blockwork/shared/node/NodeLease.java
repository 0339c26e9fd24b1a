package io.blockwork.shared.node;

import io.blockwork.BlockworkProperties;
import io.blockwork.shared.node.store.LocalNode;
import jakarta.annotation.PreDestroy;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The lease that makes this instance the only one running its node on the configuration database
 * (table {@code nodes}, V21__nodes.sql). Taken when the bean is created, before start-up assembly;
 * a second instance with the same node name fails to start, naming the holder. Renewed by a
 * heartbeat; released on a clean stop, and free to take once its heartbeat is older than
 * {@code blockwork.node-lease.ttl} (a node that died).
 *
 * <p>Why a lease row and not PostgreSQL's advisory locks: an advisory lock belongs to one database
 * session, and the service's sessions live in a connection pool that closes and replaces them
 * (a lock taken on a pooled connection would vanish with it, silently); holding one connection
 * aside for the whole run works, but the lock then shows nothing to a person asking who holds the
 * node and since when, and H2 has no such lock at all. A row works the same on H2 and PostgreSQL,
 * shows the holder, its address and its last heartbeat ({@code GET /api/v1/system/nodes}), and
 * the database's own clock decides expiry, so the instances' clocks need not agree. Its price: a
 * node that died on another host holds its name until the lease expires (15 s by default); one
 * that died on this host (its pid no longer runs) is taken over at once.
 */
@Component
public class NodeLease {

    private static final System.Logger LOG = System.getLogger(NodeLease.class.getName());

    private final LocalNode local;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final Duration ttl;
    private final ScheduledExecutorService heartbeat;
    private volatile boolean held;

    /** A node as the lease table shows it. */
    public record NodeRow(String name, String address, Instant startedAt, Instant heartbeatAt, boolean released,
                          boolean self) {}

    public NodeLease(LocalNode local, JdbcTemplate jdbc, PlatformTransactionManager transactionManager,
                     BlockworkProperties properties) {
        this.local = local;
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactionManager);
        this.ttl = properties.nodeLease().ttl();
        Duration every = properties.nodeLease().heartbeat();
        if (every.isZero() || every.isNegative() || every.compareTo(ttl) >= 0) {
            throw new IllegalArgumentException("blockwork.node-lease.heartbeat (" + every
                    + ") must be positive and shorter than blockwork.node-lease.ttl (" + ttl + ")");
        }
        take();
        this.heartbeat = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "node-lease-heartbeat");
            t.setDaemon(true);
            return t;
        });
        heartbeat.scheduleWithFixedDelay(this::renew, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** True while this instance holds its node's lease. */
    public boolean held() {
        return held;
    }

    public List<NodeRow> nodes() {
        return jdbc.query("SELECT name, address, started_at, heartbeat_at, released FROM nodes ORDER BY name",
                (rs, i) -> new NodeRow(rs.getString(1), rs.getString(2), instant(rs.getObject(3)),
                        instant(rs.getObject(4)), rs.getBoolean(5), local.owns(rs.getString(1))));
    }

    private void take() {
        String address = address();
        transactions.executeWithoutResult(status -> {
            Instant now = instant(jdbc.queryForObject("SELECT CURRENT_TIMESTAMP", Object.class));
            List<NodeRow> rows = jdbc.query("SELECT name, address, started_at, heartbeat_at, released FROM nodes"
                    + " WHERE name = ?", (rs, i) -> new NodeRow(rs.getString(1), rs.getString(2),
                    instant(rs.getObject(3)), instant(rs.getObject(4)), rs.getBoolean(5), false), local.name());
            Timestamp at = Timestamp.from(now);
            if (rows.isEmpty()) {
                try {
                    jdbc.update("INSERT INTO nodes (name, instance, address, started_at, heartbeat_at, released)"
                            + " VALUES (?, ?, ?, ?, ?, FALSE)", local.name(), local.instance(), address, at, at);
                } catch (org.springframework.dao.DataIntegrityViolationException e) {
                    throw refused("another instance took it at the same moment");
                }
                return;
            }
            NodeRow row = rows.getFirst();
            Instant expiry = now.minus(ttl);
            boolean holderDied = diedOnThisHost(row.address());
            if (!row.released() && row.heartbeatAt().isAfter(expiry) && !holderDied) {
                throw refused("it is held by the instance at " + row.address() + ", started " + row.startedAt()
                        + ", last heartbeat " + Duration.between(row.heartbeatAt(), now).toMillis() + " ms ago");
            }
            int taken = jdbc.update("UPDATE nodes SET instance = ?, address = ?, started_at = ?, heartbeat_at = ?,"
                    + " released = FALSE WHERE name = ? AND address = ? AND (released = TRUE OR heartbeat_at < ? OR ?)",
                    local.instance(), address, at, at, local.name(), row.address(), Timestamp.from(expiry), holderDied);
            if (taken != 1) {
                throw refused("another instance took it at the same moment");
            }
        });
        held = true;
        LOG.log(System.Logger.Level.INFO, "node {0}: lease taken (instance {1})", local.name(), local.instance());
    }

    private IllegalStateException refused(String why) {
        return new IllegalStateException("refusing to start: node name '" + local.name() + "' is in use on this"
                + " configuration database: " + why + ". Give this instance another blockwork.node-name, or stop"
                + " the other one (a lease is free " + ttl.toSeconds() + " s after its holder's last heartbeat)");
    }

    private void renew() {
        try {
            int renewed = jdbc.update("UPDATE nodes SET heartbeat_at = CURRENT_TIMESTAMP WHERE name = ? AND instance = ?"
                    + " AND released = FALSE", local.name(), local.instance());
            if (renewed != 1 && held) {
                held = false;
                LOG.log(System.Logger.Level.ERROR, "node {0}: the lease was lost (taken over after missed"
                        + " heartbeats); configuration changes are refused until restart", local.name());
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "node " + local.name() + ": heartbeat failed, will retry", e);
        }
    }

    @PreDestroy
    void release() {
        heartbeat.shutdownNow();
        if (!held) {
            return;
        }
        try {
            jdbc.update("UPDATE nodes SET released = TRUE WHERE name = ? AND instance = ?", local.name(),
                    local.instance());
            held = false;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "node " + local.name() + ": could not release the lease; it expires"
                    + " after " + ttl, e);
        }
    }

    private static String address() {
        return LocalNodeAddress.describe();
    }

    /**
     * True if {@code address} names a process on this host that is no longer running: a holder
     * killed with SIGKILL (or a power cut) gave no heartbeat since, and waiting out the TTL would
     * only refuse the restart that follows (systemd's, or an operator's). A reused pid counts as
     * alive, which only means waiting for the TTL.
     */
    private static boolean diedOnThisHost(String address) {
        String prefix = LocalNodeAddress.host() + " pid ";
        if (address == null || !address.startsWith(prefix)) {
            return false;
        }
        try {
            long pid = Long.parseLong(address.substring(prefix.length()));
            return ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static Instant instant(Object value) {
        return switch (value) {
            case Timestamp t -> t.toInstant();
            case OffsetDateTime o -> o.toInstant();
            case java.time.ZonedDateTime z -> z.toInstant();
            case Instant i -> i;
            case null -> null;
            default -> throw new IllegalStateException("unexpected timestamp type " + value.getClass());
        };
    }

    /** Host name and process id: enough for a person to find the holder. */
    private static final class LocalNodeAddress {
        static String describe() {
            return host() + " pid " + ProcessHandle.current().pid();
        }

        static String host() {
            try {
                return java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException e) {
                return "unknown host";
            }
        }
    }
}
