package io.blockwork.iostat.web;

import io.blockwork.iostat.app.IostatService;
import io.blockwork.iostat.app.IostatService.DeviceIostat;
import io.blockwork.shared.problem.ProblemException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "I/O statistics", description = "Per-second I/O history of every block device, iostat -x style: IOPS by "
        + "operation, bandwidth, p50/p99 latency, requests in flight")
class IostatController {

    private static final String SAMPLE = """
            {"time":1764571260,"readIops":41210.0,"writeIops":0.0,"flushIops":0.0,"discardIops":0.0,\
            "readBytesPerSecond":168796160.0,"writeBytesPerSecond":0.0,"readAwaitUs":21.4,"readP50Us":18.9,\
            "readP99Us":61.0,"writeAwaitUs":0.0,"writeP50Us":0.0,"writeP99Us":0.0,"flushP50Us":0.0,"flushP99Us":0.0,\
            "inFlight":29,"queueDepth":0.88,"errors":0.0}""";

    private final IostatService iostat;

    IostatController(IostatService iostat) {
        this.iostat = iostat;
    }

    @GetMapping(path = "/api/v1/devices/{name}/iostat", produces = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "A device's I/O history, one sample per second",
            description = "The last `seconds` seconds, oldest first (`time` is the Unix second each sample ends). "
                    + "Latencies are of the requests completed in that second. `top` is true when only NBD exports sit "
                    + "on the device: summing the top devices counts each request once.")
    @ApiResponse(responseCode = "200", content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
            examples = @ExampleObject(name = "a disk under random reads", value = "{\"device\":\"d1\",\"kind\":\"disk\","
                    + "\"top\":true,\"holders\":[\"export d1\"],\"historySeconds\":600,\"samples\":[" + SAMPLE + "]}")))
    DeviceIostat device(@PathVariable String name,
                        @Parameter(description = "How many seconds back (1 to the kept history, 600 by default)")
                        @RequestParam(defaultValue = "60") int seconds) {
        if (seconds < 1 || seconds > iostat.historySeconds()) {
            throw ProblemException.invalid("seconds", "seconds must be 1.." + iostat.historySeconds() + ", not " + seconds);
        }
        return iostat.history(name, seconds);
    }

    @GetMapping(path = "/api/v1/iostat", produces = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "The latest second of every device (a top view)",
            description = "Each device with at most one sample (none before its first full second). Hidden devices "
                    + "(a volume's -real, a snapshot's -cow) only with hidden=true.")
    @ApiResponse(responseCode = "200", content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
            examples = @ExampleObject(name = "a disk and an array on it", value = "[{\"device\":\"d1\",\"kind\":\"disk\","
                    + "\"top\":false,\"holders\":[\"array md0\"],\"historySeconds\":600,\"samples\":[" + SAMPLE + "]},"
                    + "{\"device\":\"md0\",\"kind\":\"array\",\"top\":true,\"holders\":[],\"historySeconds\":600,"
                    + "\"samples\":[" + SAMPLE + "]}]")))
    List<DeviceIostat> latest(@Parameter(description = "Include hidden devices")
                              @RequestParam(defaultValue = "false") boolean hidden) {
        return iostat.latest(hidden);
    }
}
