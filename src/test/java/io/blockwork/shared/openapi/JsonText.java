package io.blockwork.shared.openapi;

import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** JSON text of plain Java values (maps, lists, strings, numbers, booleans, null), as the fuzzer writes it. */
final class JsonText {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private JsonText() {}

    static String write(Object value) {
        StringBuilder s = new StringBuilder();
        write(value, s);
        return s.toString();
    }

    private static void write(Object value, StringBuilder s) {
        switch (value) {
            case null -> s.append("null");
            case String str -> string(str, s);
            case Map<?, ?> map -> {
                s.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    s.append(first ? "" : ",");
                    first = false;
                    string(String.valueOf(e.getKey()), s);
                    s.append(':');
                    write(e.getValue(), s);
                }
                s.append('}');
            }
            case List<?> list -> {
                s.append('[');
                for (int i = 0; i < list.size(); i++) {
                    s.append(i == 0 ? "" : ",");
                    write(list.get(i), s);
                }
                s.append(']');
            }
            default -> s.append(value);
        }
    }

    private static void string(String str, StringBuilder s) {
        s.append('"');
        for (char c : str.toCharArray()) {
            switch (c) {
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        s.append(String.format("\\u%04x", (int) c));
                    } else {
                        s.append(c);
                    }
                }
            }
        }
        s.append('"');
    }

    /** A document node as plain Java values. */
    static Object toJava(JsonNode node) {
        return MAPPER.treeToValue(node, Object.class);
    }
}
