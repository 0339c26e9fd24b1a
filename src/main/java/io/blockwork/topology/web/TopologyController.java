package io.blockwork.topology.web;

import io.blockwork.topology.app.BlastRadius;
import io.blockwork.topology.app.TopologyService;
import io.blockwork.topology.app.TopologyService.TopologyNode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.LinkedHashSet;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/topology")
@Tag(name = "Topology", description = "The whole stack as a graph, and what a failure would take down")
class TopologyController {

    private final TopologyService topology;

    TopologyController(TopologyService topology) {
        this.topology = topology;
    }

    @GetMapping
    @Operation(summary = "Every object and the objects it is built on",
            description = "Disks, arrays, dm devices, pools (id pool:NAME), volumes, snapshots and exports (id export:NAME) "
                    + "with their health; a volume's and a snapshot's hidden devices are left out.")
    List<TopologyNode> nodes() {
        return topology.nodes();
    }

    @GetMapping("/blast-radius")
    @Operation(summary = "What failing some objects would do",
            description = "Every object that would lose its data, and every one that would keep it but lose redundancy "
                    + "(an array under it would run degraded), if the given objects failed now.")
    BlastRadius.Impact blastRadius(@Parameter(description = "Object ids to fail, e.g. a disk's name")
                                   @RequestParam List<String> failed) {
        return topology.blastRadius(new LinkedHashSet<>(failed));
    }
}
