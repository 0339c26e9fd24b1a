package io.blockwork.shared.openapi;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import tools.jackson.databind.JsonNode;

/**
 * Requests for one OpenAPI operation, generated from its parameters and body schema: first a
 * plausible one (names of the fuzz fixture where a name is asked for, examples, enum values),
 * then mutated the ways careless and hostile clients get requests wrong: wrong JSON types,
 * missing, extra and repeated fields, boundary numbers, odd strings, nulls in lists, broken JSON,
 * wrong media types, odd path segments and query parameters.
 */
final class FuzzRequests {

    /** A request as sent: path and query already encoded. */
    record FuzzRequest(String method, String path, String query, String contentType, byte[] body, String what) {
        @Override
        public String toString() {
            return method + " " + path + (query.isEmpty() ? "" : "?" + query) + " [" + what + "]"
                    + (body == null ? "" : " " + new String(body, 0, Math.min(body.length, 300), StandardCharsets.UTF_8));
        }
    }

    static final List<Object> BOUNDARY_NUMBERS = List.of(0, -1, 1, 511, 512, 513, 4095, 4096, 65536,
            2147483647L, 2147483648L, -2147483649L, 9007199254740993L, Long.MAX_VALUE, Long.MIN_VALUE,
            new java.math.BigInteger("9223372036854775808"), new java.math.BigInteger("123456789012345678901234567890"),
            1.5, -0.0, 1e308, 1e-7, 4096.0);
    static final List<String> ODD_STRINGS = List.of("", " ", "A", "..", ".", "../etc/passwd", "a/b", "a b",
            "\u0000", "nul\u0000in", "line\nbreak", "x".repeat(65), "y".repeat(5000), "é", "\uD83D\uDE00", "%2F",
            "${jndi:ldap://x}", "'; DROP TABLE disks; --", "-dash", "0", "null", "true", "1MiB", "-1MiB", "+1",
            "1e3", "0x10", "8EiB", "99999999999TiB", "1.3KiB", "  2MiB  ", "\t", "<script>", "\\", "d1\" , \"x");
    private static final List<String> ODD_SEGMENTS = List.of("%2F", "a%2Fb", "..", ".", "%2e%2e", "%00", "%25",
            "A", "x".repeat(300), "%C3%A9", "%F0%9F%98%80", "a%20b", "-", "%5C", ";", "a;b=c", "~", "%0A");

    private final ApiOperations api;
    private final FuzzFixture fixture;
    private final Random random;
    private int fresh;

    FuzzRequests(ApiOperations api, FuzzFixture fixture, Random random) {
        this.api = api;
        this.fixture = fixture;
        this.random = random;
    }

    /** A request for {@code op}: the plausible one now and then, a mutation of it mostly. */
    FuzzRequest next(ApiOperations.Operation op) {
        Map<String, String> pathParams = new LinkedHashMap<>();
        for (ApiOperations.Param p : op.params("path")) {
            pathParams.put(p.name(), encode(fixture.nameFor(op.path(), p.name(), random)));
        }
        Map<String, String> query = new LinkedHashMap<>();
        for (ApiOperations.Param p : op.params("query")) {
            if (p.required() || random.nextBoolean()) {
                query.put(p.name(), plausibleQuery(p));
            }
        }
        String contentType = op.bodies().isEmpty() ? null : pick(new ArrayList<>(op.bodies().keySet()));
        Object body = contentType == null ? null : plausibleBody(op.bodies().get(contentType), contentType);
        String what = "plausible";
        byte[] raw = null;

        switch (random.nextInt(op.bodies().isEmpty() ? 4 : 14)) {
            case 0 -> { }
            case 1 -> {
                ApiOperations.Param p = op.params("path").isEmpty() ? null : pick(op.params("path"));
                if (p != null) {
                    pathParams.put(p.name(), pick(ODD_SEGMENTS));
                    what = "odd path segment " + p.name();
                }
            }
            case 2 -> what = mutateQuery(op, query);
            case 3 -> {
                contentType = pick(List.of("application/json", "text/plain", "application/xml",
                        "application/x-www-form-urlencoded", "application/octet-stream"));
                raw = pick(List.of("{}", "x", "<a/>", "a=b")).getBytes(StandardCharsets.UTF_8);
                what = "body of media type " + contentType;
            }
            default -> {
                if (contentType.contains("json") && body instanceof Map<?, ?>) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> fields = (Map<String, Object>) body;
                    JsonNode schema = op.bodies().get(contentType);
                    Mutated m = mutateBody(fields, schema);
                    raw = m.text().getBytes(StandardCharsets.UTF_8);
                    what = m.what();
                } else if (contentType.equals("application/octet-stream")) {
                    int n = pick(List.of(0, 1, 511, 512, 4096, 700));
                    raw = new byte[n];
                    random.nextBytes(raw);
                    what = "octet-stream body of " + n + " bytes";
                } else {
                    raw = pick(List.of("", "0 8 zero", "0 8 zero # c", "0 8 linear fz-d0 0", "garbage line",
                            "0 8", "-1 8 zero", "0 99999999999999999999 zero", "0 8 snapshot fz-v-real fz-s-cow P 8",
                            "0 8 linear fz-md 0", "0 8 linear fz-pd 0", "\u0000")).getBytes(StandardCharsets.UTF_8);
                    what = "text body";
                }
            }
        }
        if (raw == null && body != null) {
            raw = JsonText.write(body).getBytes(StandardCharsets.UTF_8);
        }
        String path = op.path();
        for (Map.Entry<String, String> p : pathParams.entrySet()) {
            path = path.replace("{" + p.getKey() + "}", p.getValue());
        }
        StringBuilder q = new StringBuilder();
        query.forEach((k, v) -> q.append(q.isEmpty() ? "" : "&").append(k).append('=').append(v));
        return new FuzzRequest(op.method(), path, q.toString(), contentType, raw, what);
    }

    /** A request the document does not describe: another method on a known path. */
    FuzzRequest otherMethod(ApiOperations.Operation op) {
        String method = pick(List.of("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"));
        String path = op.path().replaceAll("\\{[^}]+}", "fz-none");
        return new FuzzRequest(method, path, "", "application/json", "{}".getBytes(StandardCharsets.UTF_8),
                "method " + method);
    }

    /* ---- plausible values ---- */

    private String plausibleQuery(ApiOperations.Param p) {
        return switch (p.schema().path("type").asString("string")) {
            case "integer" -> p.name().equals("length") ? "4096" : p.name().equals("sector") ? "0" : "0";
            case "boolean" -> Boolean.toString(random.nextBoolean());
            default -> "x";
        };
    }

    private Object plausibleBody(JsonNode schema, String contentType) {
        if (!contentType.contains("json")) {
            return null;
        }
        return value(api.resolve(schema), "", 0);
    }

    /** A value for {@code schema}; {@code field} names what it is (fixture names for "device" and the like). */
    private Object value(JsonNode schema, String field, int depth) {
        schema = api.resolve(schema);
        if (schema.has("oneOf")) {
            List<JsonNode> choices = new ArrayList<>();
            schema.get("oneOf").forEach(choices::add);
            return value(pick(choices), field, depth);
        }
        if (field.equals("uri") && random.nextInt(3) > 0) {
            return fixture.remoteUri(random); // never the example's address: the fuzzer stays on this host
        }
        if (schema.has("example") && random.nextInt(3) > 0 && !isNameField(field)) {
            return JsonText.toJava(schema.get("example"));
        }
        if (schema.has("enum")) {
            List<JsonNode> values = new ArrayList<>();
            schema.get("enum").forEach(values::add);
            Object v = JsonText.toJava(pick(values));
            return schema.path("type").asString("").equals("integer") && v instanceof String s ? Long.parseLong(s) : v;
        }
        String type = schema.path("type").asString(schema.has("properties") ? "object" : "string");
        return switch (type) {
            case "object" -> {
                Map<String, Object> out = new LinkedHashMap<>();
                java.util.Set<String> required = new java.util.HashSet<>();
                schema.path("required").forEach(r -> required.add(r.asString()));
                if (depth < 4) {
                    for (Map.Entry<String, JsonNode> p : schema.path("properties").properties()) {
                        if (required.contains(p.getKey()) || random.nextInt(3) == 0) {
                            out.put(p.getKey(), value(p.getValue(), p.getKey(), depth + 1));
                        }
                    }
                }
                yield out;
            }
            case "array" -> {
                List<Object> items = new ArrayList<>();
                int n = 1 + random.nextInt(2);
                for (int i = 0; i < n; i++) {
                    items.add(value(schema.path("items"), field, depth + 1));
                }
                yield items;
            }
            case "integer" -> schema.has("minimum") ? schema.get("minimum").asLong() : (long) random.nextInt(8);
            case "number" -> 1.0;
            case "boolean" -> random.nextBoolean();
            default -> isNameField(field) ? fixture.bodyName(field, random, () -> "fzn-" + fresh++) : "x";
        };
    }

    private static boolean isNameField(String field) {
        return List.of("name", "newName", "device", "members", "spares", "replaces").contains(field);
    }

    /* ---- mutations ---- */

    private record Mutated(String text, String what) {}

    private Mutated mutateBody(Map<String, Object> fields, JsonNode schema) {
        List<String> names = new ArrayList<>(fields.keySet());
        List<String> declared = new ArrayList<>();
        api.resolve(schema).path("properties").propertyNames().forEach(declared::add);
        String field = names.isEmpty() ? (declared.isEmpty() ? "x" : pick(declared)) : pick(names);
        Map<String, Object> m = new LinkedHashMap<>(fields);
        switch (random.nextInt(12)) {
            case 0 -> {
                m.remove(field);
                return new Mutated(JsonText.write(m), "without " + field);
            }
            case 1 -> {
                return new Mutated(pick(List.of("{}", "[]", "", "null", "0", "\"x\"", "true")), "empty or non-object body");
            }
            case 2 -> {
                m.put("unexpected", pick(List.of(1, "x", true)));
                return new Mutated(JsonText.write(m), "extra field");
            }
            case 3 -> {
                String text = JsonText.write(m);
                String dup = "\"" + field + "\":" + JsonText.write(m.getOrDefault(field, 1));
                return new Mutated(text.length() > 2 ? "{" + dup + "," + text.substring(1) : "{" + dup + "}",
                        "duplicate " + field);
            }
            case 4 -> {
                m.put(field, pick(List.of(1, -1, "x", true, false, List.of(), Map.of(), List.of(1, "a"),
                        Map.of("a", 1))));
                return new Mutated(JsonText.write(m), "wrong type of " + field);
            }
            case 5 -> {
                m.put(field, null);
                return new Mutated(JsonText.write(m), "null " + field);
            }
            case 6 -> {
                m.put(field, pick(BOUNDARY_NUMBERS));
                return new Mutated(JsonText.write(m), "boundary number in " + field);
            }
            case 7 -> {
                m.put(field, pick(ODD_STRINGS));
                return new Mutated(JsonText.write(m), "odd string in " + field);
            }
            case 8 -> {
                List<Object> list = new ArrayList<>();
                list.add(null);
                list.add(pick(ODD_STRINGS));
                m.put(field, list);
                return new Mutated(JsonText.write(m), "null in a list at " + field);
            }
            case 9 -> {
                String text = JsonText.write(m);
                return new Mutated(switch (random.nextInt(7)) {
                    case 0 -> text.substring(0, Math.max(0, text.length() - 1 - random.nextInt(Math.max(1, text.length()))));
                    case 1 -> text + " {}";
                    case 2 -> "[".repeat(5000) + "]".repeat(5000);
                    case 3 -> text.replace("\"", "'");
                    case 4 -> "\uFEFF" + text;
                    case 5 -> "{\"a\":NaN}";
                    default -> "/* c */" + text;
                }, "broken JSON");
            }
            case 10 -> {
                Map<String, Object> nested = new LinkedHashMap<>();
                nested.put(field, m);
                return new Mutated(JsonText.write(nested), "wrapped in " + field);
            }
            default -> {
                m.put(declared.isEmpty() ? field : pick(declared), pick(BOUNDARY_NUMBERS.subList(0, 10)));
                return new Mutated(JsonText.write(m), "number in a declared field");
            }
        }
    }

    private String mutateQuery(ApiOperations.Operation op, Map<String, String> query) {
        List<ApiOperations.Param> params = op.params("query");
        if (params.isEmpty() || random.nextInt(4) == 0) {
            query.put(pick(List.of("force", "raw", "x", "offset")), encode(pick(ODD_STRINGS)));
            return "extra query parameter";
        }
        ApiOperations.Param p = pick(params);
        switch (random.nextInt(4)) {
            case 0 -> query.remove(p.name());
            case 1 -> query.put(p.name(), encode(String.valueOf(pick(BOUNDARY_NUMBERS))));
            case 2 -> query.put(p.name(), encode(pick(ODD_STRINGS)));
            default -> query.put(p.name(), "1&" + p.name() + "=2");
        }
        return "query parameter " + p.name();
    }

    /* ---- helpers ---- */

    private <T> T pick(List<T> from) {
        return from.get(random.nextInt(from.size()));
    }

    /** Percent-encodes everything but unreserved characters, so a value stays one path segment or query value. */
    static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
