package io.blockwork.pool.web;

import io.blockwork.pool.web.PoolBodies.CreatePool;
import io.blockwork.pool.web.PoolBodies.GrowPool;
import io.blockwork.pool.web.PoolBodies.Pool;
import io.blockwork.shared.ensure.CreatesOrConfirms;
import io.blockwork.shared.ensure.Ensure;
import io.blockwork.pool.app.PoolService;
import io.blockwork.shared.problem.Differences;
import io.blockwork.shared.units.ByteSize;
import io.blockwork.pool.app.PoolView;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.pool.thin.app.NewThinPool;
import io.blockwork.pool.thin.app.ThinPoolService;
import java.util.Comparator;
import java.util.stream.Stream;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import java.util.List;
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
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/pools")
@Tag(name = "Pools", description = "Pools, like LVM volume groups and thin pools. A classic pool is one block device "
        + "(a disk, an array, a mapped device) divided into extents of one size, which volumes are allocated from; its "
        + "allocation map is kept in the service's database. A thin pool (\"type\": \"thin\") has a data and a "
        + "metadata device (given by name, or carved from a classic pool with \"from\" and \"size\"): its volumes "
        + "have a virtual size, may add up to more than the pool holds, and take blocks only as they are written; its "
        + "snapshots share blocks. A pool keeps its devices to itself.")
class PoolController {

    private final PoolService pools;
    private final ThinPoolService thinPools;

    PoolController(PoolService pools, ThinPoolService thinPools) {
        this.pools = pools;
        this.thinPools = thinPools;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create a pool", description = "Classic: claims the device, which nothing else may use (409 "
            + "device-busy otherwise), and divides it into whole extents. Thin: claims the data and metadata devices "
            + "(or carves them from a classic pool: 409 insufficient-space if it has not the room), formats the "
            + "metadata and starts the pool. A repeat of the create (the same settings) answers 200 with the pool; "
            + "other settings are 409 name-taken naming them in differs.")
    @CreatesOrConfirms
    ResponseEntity<Pool> createPool(@Valid @RequestBody CreatePool body) {
        String type = body.type() == null ? PoolView.CLASSIC : body.type();
        NewThinPool thin = switch (type) {
            case PoolView.CLASSIC -> {
                thinOnly(body.dataDevice(), "dataDevice");
                thinOnly(body.metadataDevice(), "metadataDevice");
                thinOnly(body.from(), "from");
                yield null;
            }
            case PoolView.THIN -> {
                if (body.device() != null || body.extentSize() != null) {
                    throw ProblemException.invalid(body.device() != null ? "device" : "extentSize", "a thin pool has a"
                            + " dataDevice and a metadataDevice, or is carved from a classic pool (from, size)");
                }
                yield new NewThinPool(body.name(), body.dataDevice(), body.metadataDevice(), body.from(),
                        bytes(body.size()), bytes(body.metadataSize()), bytes(body.chunkSize()), bytes(body.lowWaterMark()),
                        body.errorWhenFull(), body.zero(), body.discards());
            }
            default -> throw ProblemException.invalid("type", "a pool's type is classic or thin, not '" + type + "'");
        };
        return new Ensure<>(() -> pool(body.name()), is -> differences(body, type, thin, is),
                () -> Pool.of(thin != null ? thinPools.create(thin)
                        : pools.create(body.name(), body.device(), bytes(body.extentSize()))), Pool::of)
                .answer(Ensure.location("/api/v1/pools/{name}", body.name()));
    }

    @PutMapping(path = "/{pool}", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create or confirm a pool", description = Ensure.PUT_SUMMARY)
    @CreatesOrConfirms
    ResponseEntity<Pool> putPool(@PathVariable String pool, @Valid @RequestBody CreatePool body) {
        Ensure.samePathName(pool, body.name(), "name");
        return createPool(body);
    }

    private Differences differences(CreatePool body, String type, NewThinPool thin, PoolView is) {
        if (!type.equals(is.type())) {
            return Differences.of("pool", body.name()).field("type", type, is.type());
        }
        if (thin != null) {
            String from = is.thin().from();
            return thin.differencesFrom(is.thin(), from == null ? null : pools.get(from).extentSizeBytes());
        }
        Long extent = bytes(body.extentSize());
        return Differences.of("pool", body.name()).field("device", body.device(), is.device())
                .field("extentSize", extent == null ? PoolService.DEFAULT_EXTENT_SIZE : extent, is.extentSizeBytes());
    }

    private PoolView pool(String name) {
        return thinPools.find(name).orElseGet(() -> pools.get(name));
    }

    private static void thinOnly(Object value, String field) {
        if (value != null) {
            throw ProblemException.invalid(field, field + " is for thin pools (\"type\": \"thin\")");
        }
    }

    private static Long bytes(ByteSize s) {
        return s == null ? null : s.bytes();
    }

    @GetMapping
    @Operation(summary = "List pools", description = "Every configured pool, classic and thin, by name: capacity and "
            + "free space, and for a thin pool its data and metadata use (Data%, Meta%) and how far it is overprovisioned.")
    List<Pool> listPools() {
        return Stream.concat(pools.list().stream(), thinPools.list().stream())
                .sorted(Comparator.comparing(PoolView::name)).map(Pool::of).toList();
    }

    @GetMapping("/{pool}")
    @Operation(summary = "Show a pool")
    Pool getPool(@PathVariable String pool) {
        return Pool.of(pool(pool));
    }

    @PatchMapping(path = "/{pool}", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Grow a thin pool online", description = "More data space (size) and/or metadata space "
            + "(metadataSize), carved from its classic pool; a pool on devices takes what they hold now. Writes queued "
            + "because the pool was full go on. Never smaller (400); classic pools are 409 not-supported.")
    Pool growPool(@PathVariable String pool, @Valid @RequestBody GrowPool body) {
        if (!thinPools.isThin(pool)) {
            pools.get(pool);
            throw new ProblemException(Problem.NOT_SUPPORTED, "pool " + pool + " is a classic pool: its size is its"
                    + " device's; only thin pools grow here");
        }
        return Pool.of(thinPools.grow(pool, bytes(body.size()), bytes(body.metadataSize())));
    }

    @DeleteMapping("/{pool}")
    @Operation(summary = "Delete an empty pool", description = "Lets go of its devices (a thin pool's carved space goes "
            + "back to its classic pool). Refused with 409 pool-not-empty while it has volumes (or, for a classic pool, "
            + "thin pools carved from it).")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void deletePool(@PathVariable String pool) {
        if (thinPools.isThin(pool)) {
            thinPools.delete(pool);
        } else {
            pools.delete(pool);
        }
    }
}
