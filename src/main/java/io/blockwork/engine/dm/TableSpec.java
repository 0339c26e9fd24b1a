package io.blockwork.engine.dm;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A table as text says it, before any target is constructed: one {@link Line} per target, with
 * the line number it came from. {@link #parse} reads {@code dmsetup} table text; {@link #of}
 * takes the list of target objects the JSON API accepts. Only the syntax is checked here
 * (fields present, sectors numeric); {@link Table} checks the layout and the arguments.
 *
 * <p>Syntax, as {@code dmsetup create/load} reads it: one target per line,
 * {@code <start> <length> <target> [<args>...]}, in 512-byte sectors, fields separated by
 * spaces or tabs; blank lines are ignored, and a field that starts with {@code #} starts a comment
 * that runs to the end of the line (so a whole line can be one). Arguments carry no escapes, so
 * device names have no white space (nor a leading {@code #}).
 */
public record TableSpec(List<Line> lines) {

    /**
     * One target line.
     *
     * @param line 1-based line number in the text (or position in the list)
     * @param start first sector in the mapped device
     * @param length sectors covered
     * @param type target type name
     * @param args the target's arguments
     */
    public record Line(int line, long start, long length, String type, List<String> args) {
        public Line {
            Objects.requireNonNull(type, "type");
            args = List.copyOf(args);
        }

        /** The line as {@code dmsetup table} prints it. */
        public String text() {
            StringBuilder s = new StringBuilder().append(start).append(' ').append(length).append(' ').append(type);
            for (String a : args) {
                s.append(' ').append(a);
            }
            return s.toString();
        }
    }

    public TableSpec {
        lines = List.copyOf(lines);
    }

    /** Parses table text; syntax errors name their line. */
    public static TableSpec parse(String text) throws TableException {
        List<Line> out = new ArrayList<>();
        String[] rows = text.split("\r?\n", -1);
        for (int i = 0; i < rows.length; i++) {
            String row = rows[i].strip();
            if (row.isEmpty()) {
                continue;
            }
            List<String> fields = List.of(row.split("[ \t]+"));
            int comment = 0;
            while (comment < fields.size() && !fields.get(comment).startsWith("#")) {
                comment++;
            }
            if (comment > 0) {
                out.add(line(i + 1, fields.subList(0, comment)));
            }
        }
        return new TableSpec(out);
    }

    /**
     * A table from target objects ({@code start}, {@code length}, {@code type}, {@code args});
     * errors name the target's 1-based position.
     */
    public static TableSpec of(List<TargetObject> targets) throws TableException {
        List<Line> out = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            TargetObject t = targets.get(i);
            if (t.type() == null || t.type().isBlank()) {
                throw new TableException(i + 1, "missing target type");
            }
            if (t.start() < 0 || t.length() < 0 || t.start() > TargetArgs.MAX_SECTOR || t.length() > TargetArgs.MAX_SECTOR) {
                throw new TableException(i + 1, "start and length must be sector counts from 0 to " + TargetArgs.MAX_SECTOR);
            }
            List<String> args = new ArrayList<>();
            for (String a : t.args()) {
                for (String word : a.strip().split("[ \t]+")) {
                    if (!word.isEmpty()) {
                        args.add(word);
                    }
                }
            }
            out.add(new Line(i + 1, t.start(), t.length(), t.type().strip(), args));
        }
        return new TableSpec(out);
    }

    /**
     * A target object as the JSON API takes it; {@code args} may be one string of
     * space-separated arguments or one string per argument.
     */
    public record TargetObject(long start, long length, String type, List<String> args) {
        public TargetObject {
            args = args == null ? List.of() : List.copyOf(args);
        }
    }

    private static Line line(int number, List<String> fields) throws TableException {
        if (fields.size() < 3) {
            throw new TableException(number, "expected '<start> <length> <target> [<args>...]' but found '"
                    + String.join(" ", fields) + "'");
        }
        long start = sector(number, fields.get(0), "start");
        long length = sector(number, fields.get(1), "length");
        return new Line(number, start, length, fields.get(2), fields.subList(3, fields.size()));
    }

    private static long sector(int line, String s, String what) throws TableException {
        long v = TargetArgs.parseUnsigned(s);
        if (v < 0 || v > TargetArgs.MAX_SECTOR) {
            throw new TableException(line, "invalid " + what + " '" + s + "': expected a sector count from 0 to "
                    + TargetArgs.MAX_SECTOR);
        }
        return v;
    }

    /** The table as {@code dmsetup table} prints it: one line per target, each ending in a newline. */
    public String text() {
        StringBuilder s = new StringBuilder();
        for (Line l : lines) {
            s.append(l.text()).append('\n');
        }
        return s.toString();
    }

    /** This spec with lines numbered 1, 2, ... (as text printed from it would be). */
    public TableSpec renumbered() {
        List<Line> out = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            Line l = lines.get(i);
            out.add(new Line(i + 1, l.start(), l.length(), l.type(), l.args()));
        }
        return new TableSpec(out);
    }
}
