package io.blockwork.support;

import io.blockwork.nbd.ExternalTool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Debian's mdadm on image files, its "Key : value" lines as a map. */
public final class Mdadm {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private Mdadm() {}

    /** {@code mdadm <options> <image>}, which must succeed. */
    public static Map<String, String> examine(Path image, String... options) {
        List<String> cmd = new ArrayList<>(List.of("mdadm"));
        cmd.addAll(List.of(options.length == 0 ? new String[] {"--examine"} : options));
        cmd.add(image.toString());
        String out = ExternalTool.run(TIMEOUT, cmd.toArray(String[]::new)).requireSuccess().stdout();
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int colon = line.indexOf(" : ");
            if (colon > 0) {
                fields.put(line.substring(0, colon).trim(), line.substring(colon + 3).trim());
            }
        }
        return fields;
    }
}
