package io.blockwork.disk.web;

import io.blockwork.nbd.client.NbdRemoteDevice;
import io.blockwork.nbd.protocol.TransmissionFlag;
import io.blockwork.shared.problem.ProblemException;
import java.util.Locale;

import io.blockwork.disk.web.DiskBodies.CreateDisk;
import io.blockwork.disk.web.DiskBodies.Faults;
import io.blockwork.disk.web.DiskBodies.Latency;
import io.blockwork.disk.web.DiskBodies.DiskStats;
import io.blockwork.disk.web.DiskBodies.Strategies;
import io.blockwork.disk.web.DiskBodies.UpdateDisk;
import io.blockwork.shared.ensure.CreatesOrConfirms;
import io.blockwork.shared.ensure.Ensure;
import io.blockwork.shared.units.TimeSpan;
import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.disk.CacheMode;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.disk.app.DiskService;
import io.blockwork.disk.app.DiskSpec;
import io.blockwork.disk.app.DiskType;
import io.blockwork.disk.app.DiskUpdate;
import io.blockwork.disk.app.DiskView;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import java.util.List;
import java.util.function.Function;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/disks")
@Tag(name = "Disks", description = "Backing disks: sparse memory, sparse file and null devices, and remote NBD exports")
class DiskController {

    private final DiskService disks;

    DiskController(DiskService disks) {
        this.disks = disks;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create a disk", description = "A repeat of the create (the same settings) answers 200 with "
            + "the disk; other settings are 409 name-taken naming them in differs.")
    @CreatesOrConfirms
    ResponseEntity<DiskBodies.Disk> create(@Valid @RequestBody CreateDisk body) {
        DiskSpec spec = toSpec(body);
        return new Ensure<>(() -> disks.get(body.name()), existing -> spec.differencesFrom(existing.spec()),
                () -> toBody(disks.create(spec, "existing".equals(body.image()))), DiskController::toBody)
                .answer(Ensure.location("/api/v1/disks/{name}", body.name()));
    }

    @PutMapping(path = "/{name}", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create or confirm a disk", description = Ensure.PUT_SUMMARY)
    @CreatesOrConfirms
    ResponseEntity<DiskBodies.Disk> put(@PathVariable String name, @Valid @RequestBody CreateDisk body) {
        Ensure.samePathName(name, body.name(), "name");
        return create(body);
    }

    @GetMapping
    @Operation(summary = "List disks", description = "Every configured disk, active or not, by name.")
    List<DiskBodies.Disk> list() {
        return disks.list().stream().map(DiskController::toBody).toList();
    }

    @GetMapping("/{name}")
    @Operation(summary = "Show a disk")
    DiskBodies.Disk get(@PathVariable String name) {
        return toBody(disks.get(name));
    }

    @PatchMapping(path = "/{name}", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Change a running disk",
            description = "Latency and queue depth are stored; faults are error injection and last until the next restart.")
    DiskBodies.Disk update(@PathVariable String name, @Valid @RequestBody UpdateDisk body) {
        Latency l = body.latency();
        Faults f = body.faults();
        DiskUpdate update = new DiskUpdate(
                nanos(l, Latency::read), nanos(l, Latency::write), nanos(l, Latency::flush), nanos(l, Latency::jitter),
                body.queueDepth(),
                f == null ? null : f.failReads(), f == null ? null : f.failWrites(), f == null ? null : f.failFlushes());
        return toBody(disks.update(name, update));
    }

    @DeleteMapping("/{name}")
    @Operation(summary = "Delete a disk and its data", description = "Refused with 409 device-busy while another object "
            + "uses it. With force=true, the disk's NBD exports are removed with it (their clients are disconnected); "
            + "other holders (arrays, mapped devices) still refuse it.")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void delete(@PathVariable String name,
                @Parameter(description = "Also remove the exports of this disk")
                @RequestParam(defaultValue = "false") boolean force) {
        disks.delete(name, force);
    }

    @PostMapping("/{name}/power-cut")
    @Operation(summary = "Cut the power of a writeback memory disk",
            description = "Drops every write that was not made durable by a flush or FUA. Other disks answer 409 not-supported.")
    DiskBodies.Disk powerCut(@PathVariable String name) {
        return toBody(disks.powerCut(name));
    }

    /* ---- mapping ---- */

    private static DiskSpec toSpec(CreateDisk b) {
        Latency l = b.latency();
        LatencyModel latency = l == null ? LatencyModel.NONE : new LatencyModel(
                orZero(nanos(l, Latency::read)), orZero(nanos(l, Latency::write)),
                orZero(nanos(l, Latency::flush)), orZero(nanos(l, Latency::jitter)));
        DiskType type = DiskType.fromLabel(b.type()).orElse(null);
        if (b.size() == null && type != DiskType.NBD) {
            throw ProblemException.invalid("size", "size is required");
        }
        if (type != DiskType.NBD && (b.uri() != null || b.connections() != null)) {
            throw ProblemException.invalid(b.uri() != null ? "uri" : "connections", "only nbd disks have a uri and connections");
        }
        DiskSpec.Remote remote = type == DiskType.NBD
                ? new DiskSpec.Remote(b.uri(), b.connections() == null ? 1 : b.connections()) : null;
        return new DiskSpec(b.name(), type, b.size() == null ? 0 : b.size().bytes(),
                b.logicalBlockSize() == null ? 512 : b.logicalBlockSize(),
                b.cache() == null ? null : CacheMode.fromLabel(b.cache()),
                latency,
                b.queueDepth() == null ? 0 : b.queueDepth(),
                b.strategies() == null || b.strategies().flush() == null ? null
                        : FlushMerging.fromLabel(b.strategies().flush()), remote);
    }

    private static Long nanos(Latency l, Function<Latency, TimeSpan> member) {
        TimeSpan t = l == null ? null : member.apply(l);
        return t == null ? null : t.nanos();
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }

    static DiskBodies.Disk toBody(DiskView v) {
        DiskSpec s = v.spec();
        LatencyModel l = s.latency();
        return new DiskBodies.Disk(s.name(), s.type().label(), s.sizeBytes(), s.logicalBlockSize(), s.cache().label(),
                new Latency(new TimeSpan(l.readNanos()), new TimeSpan(l.writeNanos()), new TimeSpan(l.flushNanos()),
                        new TimeSpan(l.jitterNanos())),
                s.queueDepth(), new Strategies(s.flushMerging().label()), s.type().keepsData(),
                v.allocatedBytes(),
                v.stats() == null ? null : DiskStats.of(v.stats().io(), v.stats().mediaFlushes(), v.stats().merges()),
                v.faults() == null ? null
                        : new Faults(v.faults().failReads(), v.faults().failWrites(), v.faults().failFlushes()),
                s.remote() == null ? null : s.remote().uri(), s.remote() == null ? null : s.remote().connections(),
                link(v.remote()), v.state(), v.node(), v.createdAt());
    }

    private static DiskBodies.RemoteLink link(NbdRemoteDevice.Status r) {
        if (r == null) {
            return null;
        }
        List<String> flags = r.export() == null ? null : r.export().flags().stream()
                .filter(f -> f != TransmissionFlag.HAS_FLAGS)
                .map(f -> f.name().toLowerCase(Locale.ROOT).replace("send_", "").replace("can_", "").replace('_', '-'))
                .sorted().toList();
        return new DiskBodies.RemoteLink(r.state().label(), r.connections(), r.lastError(), r.reconnects(),
                r.timeouts(), r.inFlight(), flags, r.export() == null ? null : r.export().structuredReplies());
    }
}
