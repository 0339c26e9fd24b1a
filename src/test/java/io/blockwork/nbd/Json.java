package io.blockwork.nbd;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader for the output of {@code nbdinfo --json} and {@code fio --output-format=json}:
 * objects become maps, arrays lists, numbers doubles or longs.
 */
public final class Json {

    private final String s;
    private int i;

    private Json(String s) {
        this.s = s;
    }

    public static Object parse(String text) {
        Json j = new Json(text);
        j.ws();
        Object v = j.value();
        j.ws();
        if (j.i != text.length()) {
            throw new IllegalArgumentException("trailing characters at " + j.i);
        }
        return v;
    }

    /** Parses from the first '{' on: fio prints notes before its JSON. */
    public static Map<String, Object> parseObject(String text) {
        int start = text.indexOf('{');
        if (start < 0) {
            throw new IllegalArgumentException("no JSON object in: " + text);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) parse(text.substring(start));
        return m;
    }

    /** Follows a path of keys and list indexes, e.g. {@code at(doc, "jobs", 0, "read", "iops")}. */
    public static Object at(Object doc, Object... path) {
        Object cur = doc;
        for (Object p : path) {
            if (p instanceof Integer idx) {
                cur = ((List<?>) cur).get(idx);
            } else {
                cur = ((Map<?, ?>) cur).get(p);
            }
            if (cur == null) {
                throw new IllegalArgumentException("no " + p + " in path " + List.of(path));
            }
        }
        return cur;
    }

    public static double number(Object doc, Object... path) {
        return ((Number) at(doc, path)).doubleValue();
    }

    private Object value() {
        char c = s.charAt(i);
        switch (c) {
            case '{': {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                ws();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    ws();
                    String k = string();
                    ws();
                    expect(':');
                    ws();
                    m.put(k, value());
                    ws();
                    if (s.charAt(i) == ',') {
                        i++;
                    } else {
                        expect('}');
                        return m;
                    }
                }
            }
            case '[': {
                i++;
                List<Object> l = new ArrayList<>();
                ws();
                if (s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                while (true) {
                    ws();
                    l.add(value());
                    ws();
                    if (s.charAt(i) == ',') {
                        i++;
                    } else {
                        expect(']');
                        return l;
                    }
                }
            }
            case '"':
                return string();
            case 't':
                i += 4;
                return Boolean.TRUE;
            case 'f':
                i += 5;
                return Boolean.FALSE;
            case 'n':
                i += 4;
                return null;
            default:
                return number();
        }
    }

    private Object number() {
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        String t = s.substring(start, i);
        if (t.isEmpty()) {
            throw new IllegalArgumentException("unexpected '" + s.charAt(start) + "' at " + start);
        }
        if (t.contains(".") || t.contains("e") || t.contains("E")) {
            return Double.parseDouble(t);
        }
        return Long.parseLong(t);
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            char c = s.charAt(i++);
            if (c == '"') {
                return b.toString();
            }
            if (c == '\\') {
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> b.append(e);
                }
            } else {
                b.append(c);
            }
        }
    }

    private void expect(char c) {
        if (s.charAt(i) != c) {
            throw new IllegalArgumentException("expected '" + c + "' at " + i + " but found '" + s.charAt(i) + "'");
        }
        i++;
    }

    private void ws() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }
}
