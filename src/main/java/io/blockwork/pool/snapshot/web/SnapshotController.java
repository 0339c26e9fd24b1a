package io.blockwork.pool.snapshot.web;

import io.blockwork.pool.snapshot.web.SnapshotBodies.CreateSnapshot;
import io.blockwork.pool.snapshot.web.SnapshotBodies.Snapshot;
import io.blockwork.shared.ensure.CreatesOrConfirms;
import io.blockwork.shared.ensure.Ensure;
import io.blockwork.shared.problem.Differences;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.pool.snapshot.app.NewSnapshot;
import io.blockwork.pool.snapshot.app.SnapshotMerges;
import io.blockwork.pool.snapshot.app.SnapshotService;
import io.blockwork.pool.snapshot.app.SnapshotView;
import io.blockwork.pool.thin.app.ThinPoolService;
import io.blockwork.pool.thin.app.ThinSnapshotService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/pools/{pool}/volumes/{volume}/snapshots")
@Tag(name = "Snapshots", description = "Snapshots of volumes, like LVM snapshots: the volume as it was when the "
        + "snapshot was taken, kept by copy-on-write into space allocated from the volume's pool. The volume keeps its "
        + "name and stays writable (its device becomes a snapshot-origin over the hidden <volume>-real); each snapshot "
        + "is a block device of kind snapshot (snapshot <volume>-real <name>-cow P <chunk>), which can be read, "
        + "written and exported over NBD (read-only with \"readOnly\": true). A volume with snapshots cannot be "
        + "resized or renamed. In a thin pool a snapshot needs no space of its own and is taken in O(1): it shares the "
        + "volume's blocks until either writes one (type thin; its size is the volume's virtual size); a thin snapshot "
        + "can be taken of another snapshot of the volume (\"source\"), and a merge is instant.")
class SnapshotController {

    private final SnapshotService snapshots;
    private final SnapshotMerges merges;
    private final ThinSnapshotService thinSnapshots;
    private final ThinPoolService thinPools;

    SnapshotController(SnapshotService snapshots, SnapshotMerges merges, ThinSnapshotService thinSnapshots,
                       ThinPoolService thinPools) {
        this.snapshots = snapshots;
        this.merges = merges;
        this.thinSnapshots = thinSnapshots;
        this.thinPools = thinPools;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Take a snapshot", description = "Allocates its COW space and starts it; from now on the "
            + "first write to each chunk of the volume copies the old chunk out first. Not enough free space is 409 "
            + "insufficient-space; a name in use is 409 name-taken; a volume merging a snapshot is 409 invalid-state. "
            + "A repeat (the same settings) answers 200 with the snapshot; other settings are 409 name-taken naming "
            + "them in differs.")
    @CreatesOrConfirms
    ResponseEntity<Snapshot> createSnapshot(@PathVariable String pool, @PathVariable String volume,
                                            @Valid @RequestBody CreateSnapshot body) {
        boolean thin = thinPools.isThin(pool);
        if (!thin && body.source() != null) {
            throw ProblemException.invalid("source", "only thin snapshots can be taken of a snapshot");
        }
        NewSnapshot cow = new NewSnapshot(body.name(), body.size() == null ? null : body.size().bytes(),
                body.chunkSize() == null ? null : body.chunkSize().bytes(), body.persistent());
        return new Ensure<>(() -> snapshot(pool, volume, body.name()),
                is -> thin ? Differences.of("snapshot", body.name())
                        .field("source", body.source() == null ? volume : body.source(), is.source())
                        : cow.differencesFrom(is),
                () -> Snapshot.of(thin ? thinSnapshots.create(pool, volume, body.name(), body.source())
                        : snapshots.create(pool, volume, cow)), Snapshot::of)
                .answer(Ensure.location("/api/v1/pools/{pool}/volumes/{volume}/snapshots/{name}", pool, volume, body.name()));
    }

    @PutMapping(path = "/{name}", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Create or confirm a snapshot", description = Ensure.PUT_SUMMARY)
    @CreatesOrConfirms
    ResponseEntity<Snapshot> putSnapshot(@PathVariable String pool, @PathVariable String volume,
                                         @PathVariable String name, @Valid @RequestBody CreateSnapshot body) {
        Ensure.samePathName(name, body.name(), "name");
        return createSnapshot(pool, volume, body);
    }

    private SnapshotView snapshot(String pool, String volume, String name) {
        return thinPools.isThin(pool) ? thinSnapshots.get(pool, volume, name) : snapshots.get(pool, volume, name);
    }

    @GetMapping
    @Operation(summary = "List a volume's snapshots", description = "Oldest first, with state and how full each is.")
    List<Snapshot> listSnapshots(@PathVariable String pool, @PathVariable String volume) {
        return (thinPools.isThin(pool) ? thinSnapshots.list(pool, volume) : snapshots.list(pool, volume)).stream()
                .map(Snapshot::of).toList();
    }

    @GetMapping("/{name}")
    @Operation(summary = "Show a snapshot", description = "State, fill percentage, and a merge's progress.")
    Snapshot getSnapshot(@PathVariable String pool, @PathVariable String volume, @PathVariable String name) {
        return Snapshot.of(snapshot(pool, volume, name));
    }

    @PostMapping("/{name}/merge")
    @Operation(summary = "Roll the volume back to the snapshot (merge)", description = "The volume shows the "
            + "snapshot's content at once and stays readable and writable while the snapshot's chunks are copied back "
            + "(progress in GET, state merging). When done, the snapshot and its COW space are gone. Refused with 409: "
            + "invalid-state while the volume merges another snapshot, device-busy while the snapshot is exported, "
            + "not-supported for a transient snapshot, conflict for an invalid one.")
    @ApiResponse(responseCode = "202", description = "Merging")
    @ResponseStatus(HttpStatus.ACCEPTED)
    Snapshot mergeSnapshot(@PathVariable String pool, @PathVariable String volume, @PathVariable String name) {
        return Snapshot.of(thinPools.isThin(pool) ? thinSnapshots.merge(pool, volume, name)
                : merges.merge(pool, volume, name));
    }

    @DeleteMapping("/{name}")
    @Operation(summary = "Delete a snapshot and free its COW space", description = "The volume goes back to a plain "
            + "linear table with its last snapshot. Refused with 409 device-busy while it is exported, unless "
            + "force=true, which removes its exports with it; 409 invalid-state while it merges.")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void deleteSnapshot(@PathVariable String pool, @PathVariable String volume, @PathVariable String name,
                        @Parameter(description = "Also remove its exports") @RequestParam(defaultValue = "false")
                        boolean force) {
        if (thinPools.isThin(pool)) {
            thinSnapshots.delete(pool, volume, name, force);
        } else {
            snapshots.delete(pool, volume, name, force);
        }
    }
}
