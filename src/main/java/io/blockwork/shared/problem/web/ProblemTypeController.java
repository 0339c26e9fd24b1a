package io.blockwork.shared.problem.web;

import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.Arrays;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Makes each problem's {@code type} URI resolvable: GET /problems/{code} describes it. No sign-in needed. */
@RestController
@RequestMapping("/problems")
@Tag(name = "Problems", description = "The problem types errors refer to (RFC 9457)")
class ProblemTypeController {

    @GetMapping
    @Operation(summary = "List problem types")
    List<ProblemType> list() {
        return Arrays.stream(Problem.values()).map(ProblemType::of).toList();
    }

    @GetMapping("/{code}")
    @Operation(summary = "Describe a problem type")
    ProblemType get(@PathVariable String code) {
        return Problem.byCode(code).map(ProblemType::of)
                .orElseThrow(() -> ProblemException.notFound("problem type", code));
    }

    record ProblemType(String type, String code, int status, String title, String description) {
        static ProblemType of(Problem p) {
            return new ProblemType(p.type(), p.code(), p.status(), p.title(), p.description());
        }
    }
}
