package io.blockwork.dm.app;

import io.blockwork.engine.block.Quoted;
import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.TableSpec;
import io.blockwork.engine.dm.TargetArgs;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A table as a request gives it: {@code dmsetup} text, or a list of target objects. Either way it
 * becomes a {@link TableSpec} whose errors name a line: the text's line, or the target's 1-based
 * position in the list.
 */
public sealed interface TableInput {

    /** The table's syntax, checked; the layout and the arguments are checked when it is built. */
    TableSpec spec() throws TableException;

    /** Table text: one {@code <start> <length> <target> [<args>...]} per line, {@code #} comments. */
    record Text(String text) implements TableInput {
        public Text {
            Objects.requireNonNull(text, "text");
        }

        @Override
        public TableSpec spec() throws TableException {
            return TableSpec.parse(text);
        }
    }

    /** Target objects in sector order. */
    record Targets(List<Target> targets) implements TableInput {
        public Targets {
            targets = List.copyOf(targets);
        }

        @Override
        public TableSpec spec() throws TableException {
            List<TableSpec.TargetObject> objects = new ArrayList<>(targets.size());
            for (int i = 0; i < targets.size(); i++) {
                Target t = targets.get(i);
                objects.add(new TableSpec.TargetObject(sectors(i + 1, t.start(), "start"),
                        sectors(i + 1, t.length(), "length"), t.target(), t.args()));
            }
            return TableSpec.of(objects);
        }

        private static long sectors(int line, String value, String what) throws TableException {
            if (value == null) {
                throw new TableException(line, "missing " + what);
            }
            String s = value.strip();
            if (!s.matches("[0-9]{1,18}") || Long.parseLong(s) > TargetArgs.MAX_SECTOR) {
                throw new TableException(line, "invalid " + what + " " + Quoted.of(value) + ": expected a sector count from 0 to "
                        + TargetArgs.MAX_SECTOR);
            }
            return Long.parseLong(s);
        }
    }

    /**
     * One target object, its fields as given (JSON numbers as their text), so every problem with
     * them is reported against its position.
     *
     * @param args one string of space-separated arguments, or one string per argument
     */
    record Target(String start, String length, String target, List<String> args) {
        public Target {
            args = args == null ? List.of() : List.copyOf(args);
        }
    }
}
