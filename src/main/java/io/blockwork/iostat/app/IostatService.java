package io.blockwork.iostat.app;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Service;

/**
 * Per-second I/O history of every block device, {@code iostat -x} style: once a second, at the
 * turn of the wall-clock second, one thread reads each device's counters and latency histograms
 * (what the engine keeps anyway) and appends the difference to the device's fixed ring
 * ({@link DeviceHistory}). Nothing happens per I/O; memory is the rings' length times the devices.
 *
 * <p>Histories follow engine objects, not names: a renamed device keeps its history, a device
 * deleted and made again starts a new one.
 */
@Service
public class IostatService {

    private static final System.Logger LOG = System.getLogger(IostatService.class.getName());

    private final DeviceRegistry registry;
    private final IostatProperties properties;
    private final Clock clock;
    private final Map<BlockDevice, DeviceHistory> histories = new ConcurrentHashMap<>();
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("iostat").factory());

    public IostatService(DeviceRegistry registry, IostatProperties properties) {
        this.registry = registry;
        this.properties = properties;
        this.clock = Clock.systemUTC();
        long toNextSecond = 1000 - clock.millis() % 1000;
        thread.scheduleAtFixedRate(this::tickLogged, toNextSecond, 1000, TimeUnit.MILLISECONDS);
    }

    /** The device's history and where it stands in the stack. */
    public record DeviceIostat(String device, String kind, boolean top, List<String> holders,
                               int historySeconds, List<IostatSample> samples) {}

    /** The last {@code seconds} samples of {@code name}, oldest first (not-found if there is no such device). */
    public DeviceIostat history(String name, int seconds) {
        RegisteredDevice e = registry.require(name);
        DeviceHistory h = e.device() == null ? null : histories.get(e.device());
        List<IostatSample> samples = h == null ? List.of() : h.last(seconds);
        return new DeviceIostat(e.name(), e.kind().label(), top(e), holders(e), properties.seconds(), samples);
    }

    /**
     * The latest second of every device ({@code iostat -x 1}'s last screen, or a "top"), by
     * name; hidden devices (a volume's {@code -real}, a snapshot's {@code -cow}) only if asked for.
     */
    public List<DeviceIostat> latest(boolean hidden) {
        List<DeviceIostat> out = new ArrayList<>();
        for (RegisteredDevice e : registry.list()) {
            if (e.kind() == DeviceKind.HIDDEN && !hidden) {
                continue;
            }
            DeviceHistory h = e.device() == null ? null : histories.get(e.device());
            IostatSample s = h == null ? null : h.latest();
            out.add(new DeviceIostat(e.name(), e.kind().label(), top(e), holders(e), properties.seconds(),
                    s == null ? List.of() : List.of(s)));
        }
        return out;
    }

    public int historySeconds() {
        return properties.seconds();
    }

    /**
     * True if nothing but NBD exports sits on the device: its I/O is nobody else's. Summing the
     * top devices counts every request once; summing all counts I/O through a volume on an
     * array three or four times.
     */
    static boolean top(RegisteredDevice e) {
        return e.kind() != DeviceKind.HIDDEN && e.holders().stream().allMatch(h -> h.kind().equals(Holder.EXPORT));
    }

    private static List<String> holders(RegisteredDevice e) {
        return e.holders().stream().map(Holder::toString).sorted().toList();
    }

    /* ---- the sampler thread ---- */

    private void tickLogged() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "iostat sampling failed; trying again in a second", e);
        }
    }

    private void tick() {
        long second = Math.round(clock.millis() / 1000.0);
        long now = System.nanoTime();
        Set<BlockDevice> live = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (RegisteredDevice e : registry.list()) {
            BlockDevice d = e.device();
            if (d == null) {
                continue;
            }
            live.add(d);
            DeviceHistory h = histories.computeIfAbsent(d, x -> {
                x.stats().timing(properties.latencyTiming());
                return new DeviceHistory(x, properties.seconds());
            });
            h.tick(second, now);
        }
        histories.keySet().removeIf(d -> !live.contains(d));
    }

    /** Stops sampling (when the service stops). */
    @EventListener(ContextClosedEvent.class)
    public void stop() {
        thread.shutdownNow();
    }
}
