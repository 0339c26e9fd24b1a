package io.blockwork.workload.web;

import io.blockwork.shared.units.ByteSize;
import io.blockwork.shared.units.TimeSpan;
import io.swagger.v3.oas.annotations.media.Schema;

/** The JSON shapes of the workloads and experiments API that differ from the service's views. */
final class WorkloadBodies {

    private WorkloadBodies() {}

    static final String CREATE_EXAMPLE = """
            {"device":"d1","rw":"randwrite","bs":"4KiB","iodepth":32,"numjobs":2,"runtime":"10s","verify":"crc32c"}""";

    static final String VIEW_EXAMPLE = """
            {"id":7,"device":"d1","state":"finished","spec":{"rw":"randwrite","rwmixread":50,"bs":4096,"iodepth":32,\
            "numjobs":2,"offset":0,"size":0,"offsetIncrement":0,"runtime":10000000000,"io":0,"fsync":0,"fua":0,\
            "verify":"crc32c","rate":0,"rateIops":0,"seed":1,"destructive":false},\
            "startedAt":"2026-12-01T07:00:00.000000Z","endedAt":"2026-12-01T07:00:10.412000Z",\
            "result":{"elapsedMillis":10001,"read":{"ios":0,"bytes":0,"iops":0.0,"bytesPerSecond":0.0,"latency":\
            {"meanNanos":0.0,"minNanos":0,"p50Nanos":0,"p90Nanos":0,"p99Nanos":0,"p999Nanos":0,"maxNanos":0}},\
            "write":{"ios":2461230,"bytes":10081198080,"iops":246098.4,"bytesPerSecond":1.008019E9,"latency":\
            {"meanNanos":251.3,"minNanos":120,"p50Nanos":231,"p90Nanos":310,"p99Nanos":611,"p999Nanos":2101,\
            "maxNanos":1402879}},"flush":{"ios":0,"bytes":0,"iops":0.0,"bytesPerSecond":0.0,"latency":{"meanNanos":0.0,\
            "minNanos":0,"p50Nanos":0,"p90Nanos":0,"p99Nanos":0,"p999Nanos":0,"maxNanos":0}},"errors":0,\
            "verify":{"blocksChecked":2129871,"mismatches":0,"firstMismatches":[]},"cancelled":false}}""";

    @Schema(description = "A workload: fio's options, by fio's names where fio has one")
    record CreateWorkload(
            @Schema(description = "The block device to run on", example = "d1", requiredMode = Schema.RequiredMode.REQUIRED)
            String device,
            @Schema(description = "The I/O pattern", allowableValues = {"read", "write", "randread", "randwrite", "randrw"},
                    requiredMode = Schema.RequiredMode.REQUIRED)
            String rw,
            @Schema(description = "Percentage of reads for randrw (50)", example = "70") Integer rwmixread,
            @Schema(description = "Bytes per I/O (4KiB)") ByteSize bs,
            @Schema(description = "I/Os each job keeps in flight, 1..1024 (1)", example = "32") Integer iodepth,
            @Schema(description = "Jobs, each on its own thread and its own region, 1..64 (1)", example = "2") Integer numjobs,
            @Schema(description = "Where job 0's region starts (0)") ByteSize offset,
            @Schema(description = "Bytes of each job's region (the device after offset, split between the jobs)") ByteSize size,
            @Schema(description = "Distance between consecutive jobs' regions (with size given: 0, every job on the "
                    + "same region, as in fio; without: the device is split evenly)") ByteSize offsetIncrement,
            @Schema(description = "How long each job runs; without runtime and io, one pass over its region") TimeSpan runtime,
            @Schema(description = "Bytes each job moves (fio's io_size)") ByteSize io,
            @Schema(description = "A flush after every this many writes (0: never)", example = "8") Integer fsync,
            @Schema(description = "FUA on every this many-th write (1: all, as fio's sync=1; 0: none)") Integer fua,
            @Schema(description = "crc32c: write checkable data, check each read, read every written block back at the "
                    + "end (none)", allowableValues = {"none", "crc32c"}) String verify,
            @Schema(description = "Each job's bandwidth cap, bytes per second (none)") ByteSize rate,
            @Schema(description = "Each job's cap in I/Os per second (none)") Long rateIops,
            @Schema(description = "Seeds offsets and data (1)") Long seed,
            @Schema(description = "Confirms that a writing workload may overwrite a device that holds data (a volume, "
                    + "snapshot, device in use or file disk); without it such a workload is refused with 409") Boolean destructive) {
    }

    @Schema(description = "A seed experiment")
    record CreateExperiment(
            @Schema(description = "Which seed", allowableValues = {"000", "001", "002", "003", "004"},
                    requiredMode = Schema.RequiredMode.REQUIRED) String seed,
            @Schema(description = "Seconds each measured run lasts, 1..60 (5)", example = "5") Long seconds) {
    }
}
