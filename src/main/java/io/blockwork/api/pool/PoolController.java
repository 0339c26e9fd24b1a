package io.blockwork.api.pool;

import io.blockwork.api.pool.PoolBodies.CreatePool;
import io.blockwork.api.pool.PoolBodies.Pool;
import io.blockwork.service.pool.PoolService;
import io.blockwork.service.pool.PoolView;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import java.net.URI;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/pools")
@Tag(name = "Pools", description = "Pools, like LVM volume groups: one block device (a disk, an array, a mapped device) "
        + "divided into extents of one size, which volumes are allocated from. The allocation map is kept in the "
        + "service's database; the pool keeps its device to itself.")
class PoolController {

    private final PoolService pools;

    PoolController(PoolService pools) {
        this.pools = pools;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create a pool", description = "Claims the device, which nothing else may use (409 "
            + "device-busy otherwise), and divides it into whole extents.")
    @ApiResponse(responseCode = "201", description = "Created; Location names the new pool")
    ResponseEntity<Pool> createPool(@Valid @RequestBody CreatePool body) {
        PoolView created = pools.create(body.name(), body.device(),
                body.extentSize() == null ? null : body.extentSize().bytes());
        return ResponseEntity.created(URI.create("/api/v1/pools/" + created.name())).body(Pool.of(created));
    }

    @GetMapping
    @Operation(summary = "List pools", description = "Every configured pool with its capacity and free space, by name.")
    List<Pool> listPools() {
        return pools.list().stream().map(Pool::of).toList();
    }

    @GetMapping("/{pool}")
    @Operation(summary = "Show a pool")
    Pool getPool(@PathVariable String pool) {
        return Pool.of(pools.get(pool));
    }

    @DeleteMapping("/{pool}")
    @Operation(summary = "Delete an empty pool", description = "Lets go of its device. Refused with 409 pool-not-empty "
            + "while it has volumes.")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void deletePool(@PathVariable String pool) {
        pools.delete(pool);
    }
}
