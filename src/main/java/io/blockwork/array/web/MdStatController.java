package io.blockwork.array.web;

import io.blockwork.array.app.ArrayService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "Arrays")
class MdStatController {

    private final ArrayService arrays;

    MdStatController(ArrayService arrays) {
        this.arrays = arrays;
    }

    @GetMapping(path = "/api/v1/mdstat", produces = MediaType.TEXT_PLAIN_VALUE)
    @Operation(operationId = "mdstat", summary = "Every assembled array in /proc/mdstat's format",
            description = "As md prints it, progress bar included, so tools that parse /proc/mdstat can parse it.")
    String mdstat() {
        return arrays.mdstat();
    }
}
