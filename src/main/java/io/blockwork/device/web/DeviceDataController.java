package io.blockwork.device.web;

import io.blockwork.shared.device.DeviceIoService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.io.IOException;
import java.io.InputStream;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/devices/{name}")
@Tag(name = "Device I/O", description = "Read, write, flush and discard any block device. Offsets and lengths are "
        + "multiples of its logical block size and inside it (else 400 misaligned or out-of-range); one read "
        + "or write moves at most 16 MiB (else 413). Writes and discards are refused (409 device-busy) on a device "
        + "something else uses (an array member, a pool's device, a mapped device's lower device) unless raw=true and "
        + "the holder allows it, and always on hidden devices.")
class DeviceDataController {

    private static final String RAW = "Write although an array or mapped device uses the device (they allow raw "
            + "access; pools, snapshots and hidden devices never do). Without it such a device answers 409 device-busy "
            + "naming its holders.";

    private final DeviceIoService io;

    DeviceDataController(DeviceIoService io) {
        this.io = io;
    }

    @GetMapping(path = "/data", produces = MediaType.APPLICATION_OCTET_STREAM_VALUE)
    @Operation(summary = "Read bytes", description = "Admin only: viewers may not read data.")
    @ApiResponse(responseCode = "200", description = "The bytes", content = @Content(
            mediaType = MediaType.APPLICATION_OCTET_STREAM_VALUE, schema = @Schema(type = "string", format = "binary")))
    ResponseEntity<byte[]> read(@PathVariable String name,
                                @Parameter(description = "Byte offset") @RequestParam long offset,
                                @Parameter(description = "Bytes to read, at most 16 MiB") @RequestParam long length) {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_OCTET_STREAM).body(io.read(name, offset, length));
    }

    @PutMapping(path = "/data", consumes = MediaType.APPLICATION_OCTET_STREAM_VALUE)
    @Operation(summary = "Write bytes", description = "Writes the request body at the offset; with fua=true it is "
            + "durable when the request returns.")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
            mediaType = MediaType.APPLICATION_OCTET_STREAM_VALUE, schema = @Schema(type = "string", format = "binary")))
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void write(@PathVariable String name,
                               @Parameter(description = "Byte offset") @RequestParam long offset,
                               @Parameter(description = "Forced unit access") @RequestParam(defaultValue = "false") boolean fua,
                               @Parameter(description = RAW) @RequestParam(defaultValue = "false") boolean raw,
                               @Parameter(hidden = true) @RequestHeader(name = "Content-Length", required = false) Long contentLength,
                      @Parameter(hidden = true) InputStream body) throws IOException {
        io.write(name, offset, contentLength == null ? -1 : contentLength, body, fua, raw);
    }

    @PostMapping("/flush")
    @Operation(summary = "Flush the device's volatile cache",
            description = "When it returns, every write that completed before it is durable.")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void flush(@PathVariable String name) {
        io.flush(name);
    }

    @PostMapping("/discard")
    @Operation(summary = "Discard a range", description = "The range reads back as zeros; memory disks free its memory.")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    void discard(@PathVariable String name,
                                 @Parameter(description = "Byte offset") @RequestParam long offset,
                                 @Parameter(description = "Bytes to discard") @RequestParam long length,
                                 @Parameter(description = RAW) @RequestParam(defaultValue = "false") boolean raw) {
        io.discard(name, offset, length, raw);
    }
}
