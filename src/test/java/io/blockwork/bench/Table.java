package io.blockwork.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A benchmark's output: an aligned text table for people and a JSON line for tools. */
final class Table {
    private final String title;
    private final List<String> columns;
    private final List<List<Object>> rows = new ArrayList<>();

    Table(String title, String... columns) {
        this.title = title;
        this.columns = List.of(columns);
    }

    Table row(Object... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException("expected " + columns.size() + " cells");
        }
        rows.add(List.of(cells));
        return this;
    }

    void print() {
        int[] width = new int[columns.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = columns.get(c).length();
            for (List<Object> r : rows) {
                width[c] = Math.max(width[c], format(r.get(c)).length());
            }
        }
        StringBuilder out = new StringBuilder("\n").append(title).append('\n');
        line(out, columns.stream().map(Object.class::cast).toList(), width);
        out.append(dashes(width)).append('\n');
        for (List<Object> r : rows) {
            line(out, r, width);
        }
        System.out.print(out);
        System.out.println("BENCH_JSON " + json());
        System.out.flush();
    }

    private static void line(StringBuilder out, List<Object> cells, int[] width) {
        for (int c = 0; c < width.length; c++) {
            String s = format(cells.get(c));
            boolean numeric = cells.get(c) instanceof Number;
            String pad = " ".repeat(width[c] - s.length());
            out.append(numeric ? pad + s : s + pad).append(c + 1 < width.length ? "  " : "\n");
        }
    }

    private static String dashes(int[] width) {
        StringBuilder s = new StringBuilder();
        for (int w : width) {
            s.append("-".repeat(w)).append("  ");
        }
        return s.toString().stripTrailing();
    }

    static String format(Object o) {
        if (o instanceof Double d) {
            double a = Math.abs(d);
            return a >= 100 ? String.format("%,.0f", d) : a >= 10 ? String.format("%.1f", d) : String.format("%.2f", d);
        }
        if (o instanceof Long || o instanceof Integer) {
            return String.format("%,d", ((Number) o).longValue());
        }
        return String.valueOf(o);
    }

    String json() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("benchmark", title);
        List<Map<String, Object>> out = new ArrayList<>();
        for (List<Object> r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int c = 0; c < columns.size(); c++) {
                m.put(columns.get(c), r.get(c));
            }
            out.add(m);
        }
        doc.put("rows", out);
        return toJson(doc);
    }

    static String toJson(Object o) {
        if (o instanceof Map<?, ?> m) {
            StringBuilder s = new StringBuilder("{");
            m.forEach((k, v) -> s.append(s.length() > 1 ? "," : "").append(toJson(k.toString())).append(':').append(toJson(v)));
            return s.append('}').toString();
        }
        if (o instanceof List<?> l) {
            StringBuilder s = new StringBuilder("[");
            l.forEach(v -> s.append(s.length() > 1 ? "," : "").append(toJson(v)));
            return s.append(']').toString();
        }
        if (o instanceof Double d) {
            return Double.isFinite(d) ? String.format("%.3f", d) : "null";
        }
        if (o instanceof Number || o instanceof Boolean) {
            return o.toString();
        }
        return '"' + String.valueOf(o).replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
