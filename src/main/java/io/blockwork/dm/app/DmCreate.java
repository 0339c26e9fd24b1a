package io.blockwork.dm.app;

import io.blockwork.engine.dm.TableException;
import io.blockwork.engine.dm.TableSpec;
import io.blockwork.shared.problem.Differences;
import java.util.List;

/**
 * A new mapped device, as the API takes it.
 *
 * @param uuid null or "" for none
 * @param table null for a device without a table ({@code dmsetup create --notable}): size 0 until
 *              a table is loaded and resumed
 * @param strategies null for the defaults; see {@link DmStrategies}
 */
public record DmCreate(String name, String uuid, TableInput table, DmStrategies strategies) {

    /**
     * How mapped device {@code is} differs from this request (docs/api.md, scripting contract): the
     * table target by target (start, length, type, arguments; comments and spacing aside) against
     * the live one, a table that does not parse as unequal to any.
     */
    public Differences differencesFrom(DmView is) {
        return Differences.of("dm device", name)
                .field("uuid", uuid == null || uuid.isEmpty() ? "" : uuid, is.uuid() == null ? "" : is.uuid())
                .field("table", targets(table), is.table() == null || is.table().isBlank() ? List.of()
                        : targets(new TableInput.Text(is.table())))
                .field("strategies", strategies == null ? DmStrategies.DEFAULTS : strategies, is.strategies());
    }

    private static List<String> targets(TableInput input) {
        if (input == null) {
            return List.of();
        }
        try {
            TableSpec spec = input.spec();
            return spec.lines().stream().map(l -> l.start() + " " + l.length() + " " + l.type() + " "
                    + String.join(" ", l.args())).toList();
        } catch (TableException e) {
            return List.of("unparsable: " + e.getMessage());
        }
    }
}
