package io.blockwork.array.web;

import io.blockwork.shared.ensure.CreatesOrConfirms;
import io.blockwork.shared.ensure.Ensure;
import io.blockwork.array.web.ArrayBodies.AddArrayMember;
import io.blockwork.array.web.ArrayBodies.CreateArray;
import io.blockwork.array.web.ArrayBodies.ArraySpeedLimits;
import io.blockwork.array.web.ArrayBodies.ArraySyncRequest;
import io.blockwork.shared.units.ByteSize;
import io.blockwork.engine.md.ArrayState;
import io.blockwork.engine.md.MdDetail;
import io.blockwork.engine.md.JournalStatus;
import io.blockwork.engine.md.MemberState;
import io.blockwork.engine.md.ParityStatus;
import io.blockwork.engine.md.SyncStatus;
import io.blockwork.array.app.ArrayAssemble;
import io.blockwork.array.app.ArrayAssemblyService;
import io.blockwork.array.app.ArrayAssembly;
import io.blockwork.array.app.ArrayCreate;
import io.blockwork.array.app.ArrayService;
import io.blockwork.array.app.ArrayView;
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
@RequestMapping("/api/v1/arrays")
@Tag(name = "Arrays", description = "md RAID arrays (linear, raid0, raid1, raid10, raid4, raid5, raid6) with mdadm's "
        + "management: members, spares, failure, resync, recovery and scrubbing; md v1.2 superblocks, write-intent "
        + "bitmaps, assembly from the members")
class ArrayController {

    private final ArrayService arrays;
    private final ArrayAssemblyService assembly;

    ArrayController(ArrayService arrays, ArrayAssemblyService assembly) {
        this.arrays = arrays;
        this.assembly = assembly;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(operationId = "createArray", summary = "Create an array (mdadm --create)", description = "The members and spares must be active "
            + "block devices nothing else uses; the array holds them until it is deleted. raid1, raid10 and raid4/5/6 "
            + "start with a resync. The array is a block device (kind \"array\"): the device, data and export endpoints "
            + "work on it. A repeat (the same settings) answers 200 with the array; other settings are 409 "
            + "name-taken naming them in differs.")
    @CreatesOrConfirms
    ResponseEntity<ArrayBodies.Array> create(@Valid @RequestBody CreateArray body) {
        ArraySpeedLimits s = body.speedLimits();
        ArrayCreate create = new ArrayCreate(body.name(), body.level(), body.members(), body.spares(),
                bytes(body.chunk()), body.layout(),
                body.strategies() == null ? null : body.strategies().flush(),
                body.strategies() == null ? null : body.strategies().barrier(),
                s == null ? null : bytes(s.min()), s == null ? null : bytes(s.max()),
                Boolean.TRUE.equals(body.assumeClean()), body.metadata(), body.bitmap(), bytes(body.bitmapChunk()), body.bitmapDelay(),
                body.stripeCacheSize(), body.journal(), body.writeMostly());
        return new Ensure<>(() -> arrays.get(body.name()), create::differencesFrom,
                () -> toBody(arrays.create(create)), ArrayController::toBody)
                .answer(Ensure.location("/api/v1/arrays/{name}", body.name()));
    }

    @PutMapping(path = "/{name}", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(operationId = "putArray", summary = "Create or confirm an array", description = Ensure.PUT_SUMMARY)
    @CreatesOrConfirms
    ResponseEntity<ArrayBodies.Array> put(@PathVariable String name, @Valid @RequestBody CreateArray body) {
        Ensure.samePathName(name, body.name(), "name");
        return create(body);
    }

    @PostMapping(path = "/assemble", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(operationId = "assembleArray", summary = "Assemble an array from its members' superblocks (mdadm --assemble)",
            description = "For arrays whose configuration is lost (the database deleted, images from another machine): "
                    + "the devices' md superblocks say which array they belong to, which slot each fills and which are "
                    + "up to date (the highest event count wins). Stale members are rebuilt (through the write-intent "
                    + "bitmap when it allows); devices with no, a torn or another array's superblock are left out with "
                    + "the reason. The array is configured as if created, with the name in its superblocks unless "
                    + "one is given.")
    @ApiResponse(responseCode = "201", description = "Assembled; Location names the array")
    ResponseEntity<ArrayBodies.Assembly> assemble(@Valid @RequestBody ArrayBodies.AssembleArray body) {
        ArraySpeedLimits s = body.speedLimits();
        ArrayAssembly done = assembly.assemble(new ArrayAssemble(body.name(), body.devices(),
                body.strategies() == null ? null : body.strategies().flush(),
                body.strategies() == null ? null : body.strategies().barrier(),
                s == null ? null : bytes(s.min()), s == null ? null : bytes(s.max())));
        List<ArrayBodies.AssembledDevice> devices = done.devices().stream()
                .map(d -> new ArrayBodies.AssembledDevice(d.device(), d.outcome(), d.slot(), d.reason())).toList();
        return ResponseEntity.created(Ensure.location("/api/v1/arrays/{name}", done.array().name()))
                .body(new ArrayBodies.Assembly(toBody(done.array()), devices));
    }

    @GetMapping
    @Operation(operationId = "listArrays", summary = "List arrays", description = "Every configured array, assembled or not, by name.")
    List<ArrayBodies.Array> list() {
        return arrays.list().stream().map(ArrayController::toBody).toList();
    }

    @GetMapping("/{name}")
    @Operation(operationId = "getArray", summary = "Show an array (mdadm --detail)")
    ArrayBodies.Array get(@PathVariable String name) {
        return toBody(arrays.get(name));
    }

    @DeleteMapping("/{name}")
    @Operation(operationId = "deleteArray", summary = "Stop and delete an array (mdadm --stop)", description = "Refused with 409 device-busy while "
            + "another object uses the array. With force=true its NBD exports are removed with it; other holders "
            + "(mapped devices, pools, arrays) still refuse it. The members are free again; their data stays.")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void delete(@PathVariable String name,
                @Parameter(description = "Also remove the exports of this array")
                @RequestParam(defaultValue = "false") boolean force) {
        arrays.delete(name, force);
    }

    @PostMapping(path = "/{name}/members", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(operationId = "addArrayMember", summary = "Add a spare or a replacement (mdadm --add, --replace)", description = "A spare is rebuilt "
            + "into an empty slot as soon as there is one. A replacement is rebuilt beside the in-sync member "
            + "`replaces` and then takes its slot; the old member becomes faulty.")
    ArrayBodies.Array addMember(@PathVariable String name, @Valid @RequestBody AddArrayMember body) {
        return toBody(arrays.addMember(name, body.device(), body.role(), body.replaces()));
    }

    @PostMapping("/{name}/members/{member}/fail")
    @Operation(operationId = "failArrayMember", summary = "Fail a member (mdadm --fail)", description = "Refused (409) for the last in-sync copy of "
            + "some data and on levels without redundancy. A spare, if any, is then rebuilt into the slot.")
    ArrayBodies.Array fail(@PathVariable String name, @PathVariable String member) {
        return toBody(arrays.failMember(name, member));
    }

    @DeleteMapping("/{name}/members/{member}")
    @Operation(operationId = "removeArrayMember", summary = "Remove a spare or a failed member (mdadm --remove)", description = "An in-sync or "
            + "rebuilding member is refused with 409 naming `member`: fail it first. The device is free again.")
    ArrayBodies.Array remove(@PathVariable String name, @PathVariable String member) {
        return toBody(arrays.removeMember(name, member));
    }

    @PostMapping("/{name}/members/{member}/re-add")
    @Operation(operationId = "reAddArrayMember", summary = "Re-add a former member (mdadm --re-add)", description = "With "
            + "metadata, the device's superblock says which slot it filled; it goes back there and only the chunks the "
            + "write-intent bitmap marks are resynced, when the bitmap still holds every write it missed (else it is "
            + "rebuilt in full). A device whose superblock does not place it comes back as a spare. Without metadata, "
            + "a device removed since the service started goes back into its old slot, one stored as failed or "
            + "missing comes back as a spare, rebuilt in full.")
    ArrayBodies.Array reAdd(@PathVariable String name, @PathVariable String member) {
        return toBody(arrays.reAddMember(name, member));
    }

    @PostMapping(path = "/{name}/members/{member}/write-mostly", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(operationId = "setArrayMemberWriteMostly", summary = "Set or clear a member's write-mostly flag (mdadm --write-mostly)",
            description = "raid1 reads avoid a write-mostly member while another in-sync copy can serve them; writes "
                    + "go to it as to any member. For a leg on another machine (an nbd disk). Stored.")
    ArrayBodies.Array writeMostly(@PathVariable String name, @PathVariable String member,
                                  @Valid @RequestBody ArrayBodies.WriteMostly body) {
        return toBody(arrays.writeMostly(name, member, body.enabled()));
    }

    @PostMapping(path = "/{name}/sync", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(operationId = "syncArray", summary = "Start or control a sync action (md's sync_action)", description = "check and repair are "
            + "refused (409) while a resync or recovery is due or another action runs; levels without redundancy "
            + "have no sync. Not stored: a restart forgets a check and a pause.")
    ArrayBodies.Array sync(@PathVariable String name, @Valid @RequestBody ArraySyncRequest body) {
        return toBody(arrays.sync(name, body.action()));
    }

    @PutMapping(path = "/{name}/speed-limits", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(operationId = "setArraySpeedLimits", summary = "Set the resync/recovery speed limits (stored)", description = "Bytes per second; an absent "
            + "limit stays as it is. They apply from the sync daemon's next window.")
    ArrayBodies.Array speedLimits(@PathVariable String name, @Valid @RequestBody ArraySpeedLimits body) {
        return toBody(arrays.speedLimits(name, bytes(body.min()), bytes(body.max())));
    }

    /* ---- mapping ---- */

    private static Long bytes(ByteSize size) {
        return size == null ? null : size.bytes();
    }

    static ArrayBodies.Array toBody(ArrayView v) {
        List<ArrayBodies.ArrayMember> members = v.members().stream().map(m -> new ArrayBodies.ArrayMember(m.number(), m.slot(),
                m.device(), m.role(), m.state(), m.stateText(), m.replacement(), m.rebuiltBytes(), m.faultReason(),
                m.recovery(), m.writeMostly())).toList();
        ArrayBodies.ArrayStrategies strategies = new ArrayBodies.ArrayStrategies(v.flushStrategy(), v.barrierStrategy());
        ArrayBodies.ArraySpeedLimitsView speed = new ArrayBodies.ArraySpeedLimitsView(v.speedMinBytes(), v.speedMaxBytes());
        MdDetail d = v.detail();
        List<String> spares = v.members().stream().filter(m -> m.state().equals(MemberState.SPARE.label()))
                .map(ArrayView.MemberView::device).toList();
        if (d == null) {
            ArrayBodies.ArrayBitmap bitmap = v.bitmapChunkBytes() == null ? null
                    : new ArrayBodies.ArrayBitmap(v.bitmapChunkBytes(), null, null, null, null);
            return new ArrayBodies.Array(v.name(), v.level(), null, null, v.chunkBytes(), v.layout(), v.layoutCode(),
                    v.stripeCacheSize() == null ? null : new ArrayBodies.ArrayStripeCache(v.stripeCacheSize(), null, null,
                            null, null, null, null, null),
                    journal(v.journal(), null),
                    v.raidDevices(), null, null, null, null, null, null, null, members, spares, null, null, null,
                    v.resyncPending(), strategies, speed, v.state(), v.node(), v.createdAt(), v.metadata(), v.uuid(), null, null,
                    bitmap, null, v.joinCandidates());
        }
        boolean redundant = !v.level().equals("linear") && !v.level().equals("raid0");
        MdDetail.Metadata m = d.metadata();
        MdDetail.Bitmap b = m.bitmap();
        ArrayBodies.ArrayBitmap bitmap = b == null ? null
                : new ArrayBodies.ArrayBitmap(b.chunkBytes(), b.chunks(), b.dirtyChunks(), b.neededChunks(),
                        b.daemonSleepSeconds());
        ParityStatus p = v.parity();
        ArrayBodies.ArrayStripeCache cache = p == null ? null : new ArrayBodies.ArrayStripeCache(p.stripeCacheSize(),
                p.stripeCacheActive(), p.stripeBytes(), p.rmwStripes(), p.rcwStripes(), p.fullStripeWrites(),
                p.batchedWrites(), p.degradedReads());
        return new ArrayBodies.Array(v.name(), v.level(), d.sizeBytes(), d.usedDevSizeBytes(), d.chunkBytes(),
                v.layout(), v.layoutCode(), cache, journal(v.journal(), d.journal()), d.raidDevices(), d.totalDevices(), d.activeDevices(), d.workingDevices(),
                d.failedDevices(), d.spareDevices(), d.state().stream().map(ArrayState::label).toList(),
                d.inactiveReason(), members, spares, redundant ? sync(d.sync()) : null,
                redundant ? d.lastSyncAction().label() : null, redundant ? d.mismatchSectors() : null,
                v.resyncPending(), strategies, speed, v.state(), v.node(), v.createdAt(), m.format(), m.uuid(),
                m.uuid() == null ? null : m.events(), m.dataOffsetBytes(), bitmap,
                redundant ? d.recoveredBytes() : null, v.joinCandidates());
    }

    private static ArrayBodies.ArrayJournal journal(String device, JournalStatus j) {
        if (j != null) {
            return new ArrayBodies.ArrayJournal(j.device(), j.sizeBytes(), j.usedBytes(), j.records(), j.checkpoints(), j.failed(),
                    j.pinned());
        }
        return device == null ? null : new ArrayBodies.ArrayJournal(device, null, null, null, null, null, null);
    }

    private static ArrayBodies.ArraySync sync(SyncStatus s) {
        return new ArrayBodies.ArraySync(s.action().label(), s.paused(), Math.round(s.percent() * 10) / 10.0,
                s.doneBytes(), s.totalBytes(), s.speedKiBps() * 1024, s.etaSeconds(), s.target());
    }
}
