package io.blockwork.workload.web;

import io.blockwork.workload.experiment.ExperimentService;
import io.blockwork.workload.experiment.ExperimentView;
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
@RequestMapping("/api/v1/experiments")
@Tag(name = "Experiments", description = "The seeds' before/after strategies, measured side by side on scratch devices")
class ExperimentController {

    private static final String RESULT_EXAMPLE = """
            {"id":3,"seed":"003","seconds":5,"state":"finished","startedAt":"2026-12-01T07:10:00.000000Z",\
            "endedAt":"2026-12-01T07:10:24.310000Z","result":{"seed":"003","workload":"dm mirror dispatch: 8K FUA \
            randwrite, iodepth 1, 1 writer, 2 legs (core log) on writeback memory disks (200 us write, 1000 us flush)",\
            "metric":"mean write latency us","higherIsBetter":false,"before":{"strategy":"timer","value":3599.2,\
            "samples":[{"elapsedMillis":1000,"readIops":0.0,"writeIops":277.0,"readP99Us":0.0,"writeP99Us":4011.0}],\
            "extra":{"timerUnplugsPerWrite":2.0,"iops":277.6}},"after":{"strategy":"explicit","value":368.1,\
            "samples":[{"elapsedMillis":1000,"readIops":0.0,"writeIops":2712.0,"readP99Us":0.0,"writeP99Us":512.0}],\
            "extra":{"timerUnplugsPerWrite":0.0,"iops":2714.5}},"ratio":9.78}}""";

    private final ExperimentService experiments;

    ExperimentController(ExperimentService experiments) {
        this.experiments = experiments;
    }

    @GetMapping("/seeds")
    @Operation(summary = "The seeds an experiment can run", description = "What each measures and its two strategies.")
    List<ExperimentService.Seed> seeds() {
        return experiments.seeds();
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Run a seed experiment",
            description = "Builds the seed's devices out of sight (memory or null disks that never enter the device "
                    + "list), runs its workload under the old strategy and the fix, `seconds` each (the benchmark's "
                    + "warm-ups and repeats add to that), and reports both and their ratio: the same code and figures "
                    + "as the Maven benchmark. One at a time (409 otherwise). Progress arrives as `progress` events "
                    + "(kind experiment); the end as `ended` with the ratio.",
            requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(
                    mediaType = MediaType.APPLICATION_JSON_VALUE,
                    examples = @ExampleObject(name = "seed 003", value = "{\"seed\":\"003\",\"seconds\":5}"))))
    @ApiResponse(responseCode = "201", description = "Started; Location names it")
    ResponseEntity<ExperimentView> start(@RequestBody WorkloadBodies.CreateExperiment body) {
        ExperimentView v = experiments.start(body.seed(), body.seconds());
        return ResponseEntity.created(URI.create("/api/v1/experiments/" + v.id())).body(v);
    }

    @GetMapping
    @Operation(summary = "List experiments", description = "Newest first.")
    List<ExperimentView> list(@RequestParam(defaultValue = "20") int limit) {
        return experiments.list(WorkloadController.checkLimit(limit));
    }

    @GetMapping("/{id}")
    @Operation(summary = "Show an experiment", description = "While it runs: the step and strategy (`progress`). "
            + "Once finished: both strategies' figures, per-second samples for charts, and the ratio.")
    @ApiResponse(responseCode = "200", content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
            examples = @ExampleObject(name = "seed 003 finished", value = RESULT_EXAMPLE)))
    ExperimentView get(@PathVariable long id) {
        return experiments.get(id);
    }

    @DeleteMapping("/{id}")
    @Operation(summary = "Cancel an experiment, or forget an ended one",
            description = "A running experiment stops after its current step's I/Os complete (200, as recorded); an "
                    + "ended one is removed from the history (204).")
    @ApiResponse(responseCode = "200", description = "Cancelled; the experiment as recorded")
    @ApiResponse(responseCode = "204", description = "Removed from the history")
    ResponseEntity<ExperimentView> delete(@PathVariable long id) {
        ExperimentView v = experiments.cancel(id);
        return v == null ? ResponseEntity.noContent().build() : ResponseEntity.ok(v);
    }
}
