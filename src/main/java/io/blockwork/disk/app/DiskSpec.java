package io.blockwork.disk.app;

import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.disk.CacheMode;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.nbd.client.NbdClientConfig;
import io.blockwork.nbd.client.NbdUri;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.problem.Differences;
import io.blockwork.shared.problem.ProblemException;

/**
 * Everything that defines a disk, as stored and as the API takes it. The constructor checks it
 * and blames the request field at fault.
 *
 * @param sizeBytes for an nbd disk 0 until the server has told it (create), then the export's size
 * @param remote where an nbd disk's export is; null for the other types
 */
public record DiskSpec(String name, DiskType type, long sizeBytes, int logicalBlockSize, CacheMode cache,
                       LatencyModel latency, int queueDepth, FlushMerging flushMerging, Remote remote) {

    /**
     * An nbd disk's server.
     *
     * @param uri nbd://host[:port]/name or nbd+unix:///name?socket=path
     * @param connections 1 (default) or more, used only if the server offers CAN_MULTI_CONN
     */
    public record Remote(String uri, int connections) {
        public Remote {
            if (uri == null || uri.isBlank()) {
                throw ProblemException.invalid("uri", "an nbd disk needs \"uri\": nbd://host:port/name or"
                        + " nbd+unix:///name?socket=path");
            }
            try {
                NbdUri.parse(uri);
            } catch (IllegalArgumentException e) {
                throw ProblemException.invalid("uri", e.getMessage());
            }
            if (connections < 1 || connections > NbdClientConfig.MAX_CONNECTIONS) {
                throw ProblemException.invalid("connections", "connections must be 1.." + NbdClientConfig.MAX_CONNECTIONS);
            }
        }
    }

    public DiskSpec(String name, DiskType type, long sizeBytes, int logicalBlockSize, CacheMode cache,
                    LatencyModel latency, int queueDepth, FlushMerging flushMerging) {
        this(name, type, sizeBytes, logicalBlockSize, cache, latency, queueDepth, flushMerging, null);
    }

    public DiskSpec {
        DeviceNames.require(name, "name");
        if (type == null) {
            throw ProblemException.invalid("type", "type is required: memory, file, null or nbd");
        }
        if (logicalBlockSize != 512 && logicalBlockSize != 4096) {
            throw ProblemException.invalid("logicalBlockSize", "logical block size must be 512 or 4096");
        }
        if (type == DiskType.NBD) {
            requireRemoteOnly(remote, cache, latency, queueDepth);
        } else if (remote != null) {
            throw ProblemException.invalid("uri", "only an nbd disk has a uri");
        }
        if (sizeBytes <= 0 && type != DiskType.NBD) {
            throw ProblemException.invalid("size", "size must be positive");
        }
        if (sizeBytes < 0) {
            throw ProblemException.invalid("size", "size must be positive");
        }
        if (sizeBytes % logicalBlockSize != 0) {
            throw ProblemException.invalid("size", "size " + sizeBytes
                    + " is not a multiple of the logical block size " + logicalBlockSize);
        }
        if (queueDepth < 0) {
            throw ProblemException.invalid("queueDepth", "queue depth must be 0 (no limit) or positive");
        }
        if (cache == null) {
            cache = CacheMode.WRITETHROUGH;
        }
        if (latency == null) {
            latency = LatencyModel.NONE;
        }
        if (flushMerging == null) {
            flushMerging = FlushMerging.MERGED;
        }
    }

    /**
     * The longest service time a disk may be given for reads, writes or flushes, and the most
     * jitter. A latency is sampled when a request is sent and kept until it completes, so a
     * request sent under an hour's latency holds whatever waits for it (a flush, a suspend, a
     * management change) for that hour, whatever the latency is changed to afterwards. A device
     * that stalls for longer is a dm {@code delay} table, which a suspend does not wait out.
     */
    static final long MAX_LATENCY_NANOS = 1_000_000_000L;

    /** Refuses a latency above {@link #MAX_LATENCY_NANOS}, naming its field under {@code latency}. */
    static void requireBounded(LatencyModel l) {
        bounded("latency.read", l.readNanos());
        bounded("latency.write", l.writeNanos());
        bounded("latency.flush", l.flushNanos());
        bounded("latency.jitter", l.jitterNanos());
    }

    private static void bounded(String field, long nanos) {
        if (nanos > MAX_LATENCY_NANOS) {
            throw ProblemException.invalid(field, field + " must be at most 1s (a disk's service time; for a device"
                    + " that stalls longer, put a dm delay table over the disk)");
        }
    }

    /**
     * An nbd disk's size is the export's: a size given on create must match it, and the cache,
     * latency and queue depth are the server's business.
     */
    private static void requireRemoteOnly(Remote remote, CacheMode cache, LatencyModel latency, int queueDepth) {
        if (remote == null) {
            throw ProblemException.invalid("uri", "an nbd disk needs \"uri\": nbd://host:port/name or"
                    + " nbd+unix:///name?socket=path");
        }
        if (cache == CacheMode.WRITEBACK || (latency != null && !latency.equals(LatencyModel.NONE)) || queueDepth != 0) {
            throw ProblemException.invalid("type", "an nbd disk has no cache, latency model or queue depth of its"
                    + " own: the server's device has them");
        }
    }

    /** How disk {@code is} differs from this, the spec a create asked for (docs/api.md, scripting contract). */
    public Differences differencesFrom(DiskSpec is) {
        return Differences.of("disk", name)
                .field("type", type.label(), is.type.label())
                // an nbd disk's size is the export's unless the create named one
                .field("size", type == DiskType.NBD && sizeBytes == 0 ? null : sizeBytes, is.sizeBytes)
                .field("logicalBlockSize", logicalBlockSize, is.logicalBlockSize)
                .field("cache", cache.label(), is.cache.label())
                .field("latency", latency, is.latency)
                .field("queueDepth", queueDepth, is.queueDepth)
                .field("strategies.flush", flushMerging.label(), is.flushMerging.label())
                .field("uri", remote == null ? null : remote.uri(), is.remote == null ? null : is.remote.uri())
                .field("connections", remote == null ? null : remote.connections(),
                        is.remote == null ? null : is.remote.connections());
    }

    /** The NBD client's settings of an nbd disk. */
    public NbdClientConfig clientConfig() {
        return new NbdClientConfig(NbdUri.parse(remote.uri()), remote.connections(), NbdClientConfig.DEFAULT_TIMEOUT,
                logicalBlockSize);
    }

    DiskSpec withSize(long bytes) {
        return new DiskSpec(name, type, bytes, logicalBlockSize, cache, latency, queueDepth, flushMerging, remote);
    }

    DiskConfig engineConfig() {
        return new DiskConfig(logicalBlockSize, cache, latency, queueDepth, flushMerging);
    }
}
