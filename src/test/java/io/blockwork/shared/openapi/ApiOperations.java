package io.blockwork.shared.openapi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The operations of the checked-in OpenAPI document ({@link OpenApiDocument#FILE}), as the
 * tests that are derived from it (auth matrix, fuzzing) walk them: method, path template,
 * parameters, request body media types and schemas. Component {@code $ref}s resolve through
 * {@link #resolve}.
 */
final class ApiOperations {

    /** One parameter: {@code in} is "path" or "query". */
    record Param(String name, String in, boolean required, JsonNode schema) {}

    /**
     * One operation.
     *
     * @param bodies media type to schema; empty when it takes no body
     * @param streams its answer is an event stream, which stays open
     */
    record Operation(String method, String path, String id, List<Param> params, Map<String, JsonNode> bodies,
                     boolean bodyRequired, boolean streams) {

        boolean changes() {
            return !method.equals("GET");
        }

        List<Param> params(String in) {
            return params.stream().filter(p -> p.in().equals(in)).toList();
        }

        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    private final JsonNode document;
    private final List<Operation> operations;

    private ApiOperations(JsonNode document) {
        this.document = document;
        List<Operation> ops = new ArrayList<>();
        for (Map.Entry<String, JsonNode> path : document.get("paths").properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                JsonNode o = op.getValue();
                List<Param> params = new ArrayList<>();
                for (JsonNode p : o.path("parameters")) {
                    params.add(new Param(p.get("name").asString(), p.get("in").asString(),
                            p.path("required").asBoolean(false), resolve(p.path("schema"))));
                }
                Map<String, JsonNode> bodies = new java.util.LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> c : o.path("requestBody").path("content").properties()) {
                    bodies.put(c.getKey(), resolve(c.getValue().path("schema")));
                }
                boolean streams = false;
                for (JsonNode response : o.path("responses")) {
                    streams |= response.path("content").has("text/event-stream");
                }
                ops.add(new Operation(op.getKey().toUpperCase(java.util.Locale.ROOT), path.getKey(),
                        o.path("operationId").asString(""), List.copyOf(params), Map.copyOf(bodies),
                        o.path("requestBody").path("required").asBoolean(false), streams));
            }
        }
        this.operations = List.copyOf(ops);
    }

    static ApiOperations load() {
        try {
            return new ApiOperations(JsonMapper.builder().build().readTree(Files.readString(Path.of(OpenApiDocument.FILE))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<Operation> all() {
        return operations;
    }

    /** A schema with its {@code $ref} followed (once; component schemas here do not chain refs). */
    JsonNode resolve(JsonNode schema) {
        if (schema != null && schema.has("$ref")) {
            String ref = schema.get("$ref").asString();
            return document.at(ref.substring(1));
        }
        return schema;
    }
}
