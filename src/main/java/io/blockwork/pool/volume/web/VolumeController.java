package io.blockwork.pool.volume.web;

import io.blockwork.pool.volume.web.VolumeBodies.ChangeVolume;
import io.blockwork.pool.volume.web.VolumeBodies.CreateVolume;
import io.blockwork.pool.volume.web.VolumeBodies.RenameVolume;
import io.blockwork.pool.volume.web.VolumeBodies.Volume;
import io.blockwork.shared.ensure.CreatesOrConfirms;
import io.blockwork.shared.ensure.Ensure;
import io.blockwork.shared.problem.Differences;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.pool.thin.app.ThinPoolService;
import io.blockwork.pool.thin.app.ThinVolumeService;
import io.blockwork.pool.volume.app.VolumeChange;
import io.blockwork.pool.volume.app.VolumeResult;
import io.blockwork.pool.volume.app.VolumeService;
import io.blockwork.pool.volume.app.VolumeView;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import java.net.URI;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
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
@RequestMapping("/api/v1")
@Tag(name = "Volumes", description = "Volumes, like LVM logical volumes. In a classic pool: whole extents, contiguous "
        + "when one free run holds them, else from several runs (segments), a mapped device of linear targets over the "
        + "pool's device. In a thin pool: a virtual size, any size (volumes may add up to more than the pool holds), "
        + "blocks allocated as they are written (allocatedBytes, dataPercent: lvs' Data%). Each volume is a block device "
        + "of kind volume under its own name, so the data endpoints, statistics and NBD exports work on it. Sizes are "
        + "whole 512-byte sectors, rounded up to whole extents (chunks for thin volumes).")
class VolumeController {

    private static final String POOLS = "/api/v1/pools/";

    private final VolumeService volumes;
    private final ThinVolumeService thinVolumes;
    private final ThinPoolService thinPools;

    VolumeController(VolumeService volumes, ThinVolumeService thinVolumes, ThinPoolService thinPools) {
        this.volumes = volumes;
        this.thinVolumes = thinVolumes;
        this.thinPools = thinPools;
    }

    @PostMapping(path = "/pools/{pool}/volumes", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create a volume", description = "Allocates its extents and makes it a block device. A repeat "
            + "with the same name and size (rounded as the create rounds it) in the same pool answers 200 with the "
            + "volume already there; another size is 409 name-taken naming it in differs, and the name of a volume of "
            + "another pool is 409 name-taken. Not enough free space is 409 insufficient-space, which says how much is "
            + "free.")
    @CreatesOrConfirms
    ResponseEntity<Volume> createVolume(@PathVariable String pool, @Valid @RequestBody CreateVolume body) {
        Long size = body.size() == null ? null : body.size().bytes();
        return new Ensure<>(() -> volume(pool, body.name()),
                is -> Differences.of("volume", body.name()).size("size", size, is.sizeBytes(), is.extentSizeBytes()),
                () -> Volume.of(thinPools.isThin(pool) ? thinVolumes.create(pool, body.name(), size)
                        : volumes.create(pool, body.name(), size)), Volume::of)
                .answer(Ensure.location(POOLS + "{pool}/volumes/{name}", pool, body.name()));
    }

    @PutMapping(path = "/pools/{pool}/volumes/{name}", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create or confirm a volume", description = Ensure.PUT_SUMMARY)
    @CreatesOrConfirms
    ResponseEntity<Volume> putVolume(@PathVariable String pool, @PathVariable String name,
                                     @Valid @RequestBody CreateVolume body) {
        Ensure.samePathName(name, body.name(), "name");
        return createVolume(pool, body);
    }

    @GetMapping("/volumes")
    @Operation(summary = "List volumes of every pool", description = "Like lvs: pool, size, segments, device, "
            + "attributes and exports of every configured volume, by name.")
    List<Volume> listAllVolumes() {
        return Stream.concat(volumes.list().stream(), thinVolumes.list().stream())
                .sorted(Comparator.comparing(VolumeView::name)).map(Volume::of).toList();
    }

    @GetMapping("/pools/{pool}/volumes")
    @Operation(summary = "List a pool's volumes")
    List<Volume> listVolumes(@PathVariable String pool) {
        return (thinPools.isThin(pool) ? thinVolumes.list(pool) : volumes.list(pool)).stream().map(Volume::of).toList();
    }

    @GetMapping("/pools/{pool}/volumes/{name}")
    @Operation(summary = "Show a volume", description = "With its segments (volume extents → pool extents) and its table.")
    Volume getVolume(@PathVariable String pool, @PathVariable String name) {
        return Volume.of(volume(pool, name));
    }

    private VolumeView volume(String pool, String name) {
        return thinPools.isThin(pool) ? thinVolumes.get(pool, name) : volumes.get(pool, name);
    }

    @PatchMapping(path = "/pools/{pool}/volumes/{name}", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Resize and/or rename a volume", description = "size: absolute (\"20GiB\") or relative "
            + "(\"+5GiB\", \"-1GiB\"), rounded up to whole extents. Growing is online: I/O in flight completes and new "
            + "I/O waits for the bigger table, none fails. Shrinking needs \"allowShrink\": true (409 "
            + "shrink-not-confirmed otherwise): the data past the new end is lost and its extents are freed. name: "
            + "refused with 409 device-busy while the volume is exported or used. Both are refused with 409 "
            + "has-snapshots while the volume has snapshots.")
    ResponseEntity<Volume> changeVolume(@PathVariable String pool, @PathVariable String name,
                                        @Valid @RequestBody ChangeVolume body) {
        SizeChange size = body.size();
        VolumeChange change = new VolumeChange(size == null || size.relative() ? null : size.bytes(),
                size == null || !size.relative() ? null : size.bytes(), Boolean.TRUE.equals(body.allowShrink()),
                body.name());
        VolumeResult result = thinPools.isThin(pool) ? thinVolumes.change(pool, name, change)
                : volumes.change(pool, name, change);
        return ResponseEntity.ok().location(location(result.volume())).body(Volume.of(result));
    }

    @PostMapping(path = "/pools/{pool}/volumes/{name}/rename", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Rename a volume", description = "The same as PATCH {\"name\"}; refused with 409 device-busy "
            + "while the volume is exported or used.")
    ResponseEntity<Volume> renameVolume(@PathVariable String pool, @PathVariable String name,
                                        @Valid @RequestBody RenameVolume body) {
        VolumeView renamed;
        try {
            renamed = thinPools.isThin(pool)
                    ? thinVolumes.change(pool, name, VolumeChange.rename(body.newName())).volume()
                    : volumes.rename(pool, name, body.newName());
        } catch (ProblemException e) {
            // the services speak PATCH's field; this request's is newName
            throw "name".equals(e.field()) ? e.atField("newName") : e;
        }
        return ResponseEntity.ok().location(location(renamed)).body(Volume.of(renamed));
    }

    @DeleteMapping("/pools/{pool}/volumes/{name}")
    @Operation(summary = "Delete a volume and free its extents", description = "Refused with 409 device-busy while it "
            + "is exported or used, and with 409 has-snapshots while it has snapshots. With force=true its snapshots and "
            + "NBD exports (theirs too) are removed with it (their clients are disconnected) and I/O still coming "
            + "fails; mapped devices built on it still refuse it.")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void deleteVolume(@PathVariable String pool, @PathVariable String name,
                      @Parameter(description = "Also remove its exports") @RequestParam(defaultValue = "false")
                      boolean force) {
        if (thinPools.isThin(pool)) {
            thinVolumes.delete(pool, name, force);
        } else {
            volumes.delete(pool, name, force);
        }
    }

    private static URI location(VolumeView v) {
        return Ensure.location(POOLS + "{pool}/volumes/{name}", v.pool(), v.name());
    }
}
