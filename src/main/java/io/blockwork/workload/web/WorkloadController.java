package io.blockwork.workload.web;

import io.blockwork.shared.units.ByteSize;
import io.blockwork.shared.units.TimeSpan;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.workload.app.WorkloadRequest;
import io.blockwork.workload.app.WorkloadService;
import io.blockwork.workload.app.WorkloadView;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.net.URI;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/workloads")
@Tag(name = "Workloads", description = "The built-in fio-like load generator, run against any block device")
class WorkloadController {

    private final WorkloadService workloads;

    WorkloadController(WorkloadService workloads) {
        this.workloads = workloads;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Start a workload",
            description = "Runs at once, beside any others. A writing workload on a device that holds data (a volume "
                    + "or snapshot, a device something uses, a file disk) is refused with 409 destructive-not-confirmed "
                    + "unless `destructive` is true; reading ones always run. Progress arrives as `progress` events "
                    + "(kind workload) once a second and in GET; the end as an `ended` event.",
            requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(
                    mediaType = MediaType.APPLICATION_JSON_VALUE,
                    examples = @ExampleObject(name = "random writes, verified", value = WorkloadBodies.CREATE_EXAMPLE))))
    @ApiResponse(responseCode = "201", description = "Started; Location names it")
    ResponseEntity<WorkloadView> start(@RequestBody WorkloadBodies.CreateWorkload body) {
        WorkloadView v = workloads.start(new WorkloadRequest(body.device(), body.rw(), body.rwmixread(), bytes(body.bs()),
                body.iodepth(), body.numjobs(), bytes(body.offset()), bytes(body.size()), bytes(body.offsetIncrement()),
                nanos(body.runtime()), bytes(body.io()), body.fsync(), body.fua(), body.verify(), bytes(body.rate()),
                body.rateIops(), body.seed(), body.destructive()));
        return ResponseEntity.created(URI.create("/api/v1/workloads/" + v.id())).body(v);
    }

    @GetMapping
    @Operation(summary = "List workloads", description = "Running and ended ones, newest first.")
    List<WorkloadView> list(@RequestParam(defaultValue = "20") int limit) {
        return workloads.list(checkLimit(limit));
    }

    @GetMapping("/{id}")
    @Operation(summary = "Show a workload", description = "While it runs: `progress` (the last second and totals). "
            + "Once ended: `result`, fio's summary per operation (I/Os, bytes, IOPS, bandwidth, latency percentiles in "
            + "nanoseconds), I/O errors and verify failures.")
    @ApiResponse(responseCode = "200", content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
            examples = @ExampleObject(name = "a finished verified run", value = WorkloadBodies.VIEW_EXAMPLE)))
    WorkloadView get(@PathVariable long id) {
        return workloads.get(id);
    }

    @DeleteMapping("/{id}")
    @Operation(summary = "Cancel a workload, or forget an ended one",
            description = "A running workload stops (within a second: its I/Os in flight complete, the verify pass "
                    + "is skipped) and is returned as recorded (200). An ended one is removed from the history (204).")
    @ApiResponse(responseCode = "200", description = "Cancelled; the workload as recorded")
    @ApiResponse(responseCode = "204", description = "Removed from the history")
    ResponseEntity<WorkloadView> delete(@PathVariable long id) {
        WorkloadView v = workloads.cancel(id);
        return v == null ? ResponseEntity.noContent().build() : ResponseEntity.ok(v);
    }

    static int checkLimit(int limit) {
        if (limit < 1 || limit > 1000) {
            throw ProblemException.invalid("limit", "limit must be 1..1000, not " + limit);
        }
        return limit;
    }

    private static Long bytes(ByteSize b) {
        return b == null ? null : b.bytes();
    }

    private static Long nanos(TimeSpan t) {
        return t == null ? null : t.nanos();
    }
}
