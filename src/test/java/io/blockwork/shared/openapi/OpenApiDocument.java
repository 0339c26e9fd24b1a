package io.blockwork.shared.openapi;

import java.util.Optional;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The checked-in OpenAPI document: how it is normalized, and how drift from it is reported. */
final class OpenApiDocument {

    static final String FILE = "openapi/blockwork-api.json";
    static final String REGENERATE = "mvn -B -ntp test -Dtest=OpenApiContractTest -Dblockwork.openapi.update=true";

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();

    private OpenApiDocument() {}

    /** Pretty-printed with two-space indents and every object's keys sorted, so diffs are small and stable. */
    static String normalize(String json) {
        Object tree = MAPPER.readValue(json, Object.class);
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter()
                .withSeparators(Separators.createDefaultInstance().withObjectNameValueSpacing(Separators.Spacing.AFTER))
                .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                .withArrayIndenter(new DefaultIndenter("  ", "\n"));
        return MAPPER.writer().with(printer).writeValueAsString(tree) + "\n";
    }

    /** Empty when the documents are the same; else where they first differ and how to regenerate. */
    static Optional<String> drift(String checkedIn, String served) {
        String[] expected = normalize(checkedIn).split("\n", -1);
        String[] actual = normalize(served).split("\n", -1);
        int n = Math.min(expected.length, actual.length);
        for (int i = 0; i <= n; i++) {
            String e = i < expected.length ? expected[i] : "<end of file>";
            String a = i < actual.length ? actual[i] : "<end of file>";
            if (!e.equals(a)) {
                return Optional.of("The served OpenAPI document differs from " + FILE + " at line " + (i + 1)
                        + ":\n  checked in: " + e.strip() + "\n  served:     " + a.strip()
                        + "\nIf the API change is intended, regenerate the file with\n  " + REGENERATE
                        + "\nand commit it.");
            }
        }
        return Optional.empty();
    }
}
