package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.nbd.ExternalTool;
import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 30, finding 2: the scripting contract's provisioning script (docs/api.md), its text
 * itself, run twice against one service. The first run creates every object (each request 201);
 * the second confirms them (each 200) and changes nothing: every listing reads the same before
 * and after it, createdAt and all (so nothing was made again), but for the members background
 * daemons move on their own (I/O counters, md's clean/active flag and event count, the bitmap's
 * dirty chunks, fill levels).
 */
@Tag("real-client")
class EnsureWalkthroughTest {

    private static final String MARKER = "<!-- walkthrough: scripting contract";
    /** The status {@code ensure} prints after each answer. */
    private static final Pattern STATUS = Pattern.compile("(?m) (\\d{3})$");
    private static final List<String> LISTINGS = List.of("/api/v1/disks", "/api/v1/arrays", "/api/v1/pools",
            "/api/v1/volumes", "/api/v1/pools/pvg0/volumes/pvol0/snapshots", "/api/v1/exports", "/api/v1/devices",
            "/api/v1/dm/devices");

    /** Members that change without a request: counters and the moments of background daemons. */
    private static final Set<String> MOVING = Set.of("stats", "arrayState", "events", "bitmap", "sync",
            "allocatedBytes", "fillPercent", "status", "usedMetadataBytes", "metadataPercent", "usedDataBytes",
            "dataPercent", "exceptions", "transactionId", "recoveredBytes", "mismatchCount", "lastSyncAction");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path scratch;

    @Test
    void theProvisioningScriptRunsTwiceAndItsSecondRunChangesNothing() throws Exception {
        String script = ReadmeScript.block(Path.of("docs/api.md"), MARKER);
        assertThat(script).contains("set -euo pipefail", "--fail-with-body", "-X PUT");
        for (String tool : new String[] {"bash", "curl", "sed"}) {
            ExternalTool.require(tool);
        }
        try (RunningService running = RunningService.start(TempDataDir.newDataDir())) {
            ServiceClient api = running.client();
            List<String> first = statuses(ReadmeScript.run(script, api, 0, Files.createDirectories(scratch.resolve("1"))));
            assertThat(first).hasSize(9).containsOnly("201");
            Map<String, String> before = listings(api);

            List<String> second = statuses(ReadmeScript.run(script, api, 0, Files.createDirectories(scratch.resolve("2"))));
            assertThat(second).hasSize(9).containsOnly("200");
            assertThat(listings(api)).isEqualTo(before);
        }
    }

    private static List<String> statuses(String output) {
        List<String> out = new ArrayList<>();
        Matcher m = STATUS.matcher(output);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static void withoutMoving(JsonNode node) {
        if (node instanceof ObjectNode o) {
            o.remove(MOVING);
        }
        node.forEach(EnsureWalkthroughTest::withoutMoving);
    }

    private static Map<String, String> listings(ServiceClient api) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        for (String path : LISTINGS) {
            JsonNode listing = JSON.readTree(api.get(path).body());
            withoutMoving(listing);
            out.put(path, listing.toString());
        }
        return out;
    }
}
