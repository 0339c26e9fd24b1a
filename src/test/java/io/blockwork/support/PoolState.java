package io.blockwork.support;

import io.blockwork.engine.dm.MappedDevice;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.RequestBuilder;
import org.springframework.test.web.servlet.ResultActions;

/**
 * Everything a pool or volume operation may change, for names starting with a prefix: the
 * registry's entries (kind, holders, size, the live and inactive tables of volumes, state) and the
 * rows of pools, volumes, their allocation map, exports and snapshots. Tests compare it before and after a
 * refused or rolled-back operation.
 */
public final class PoolState {

    private PoolState() {}

    public static String of(JdbcTemplate jdbc, DeviceRegistry registry, String prefix) {
        StringBuilder s = new StringBuilder();
        for (RegisteredDevice e : registry.list()) {
            if (!e.name().startsWith(prefix)) {
                continue;
            }
            s.append(e.name()).append(' ').append(e.kind()).append(' ').append(e.state().actual()).append(" holders=")
                    .append(e.holders().stream().map(Holder::toString).sorted().collect(Collectors.joining(",")))
                    .append(" exclusive=").append(e.exclusive());
            if (e.live()) {
                s.append(" size=").append(e.device().sizeBytes());
            }
            if (e.device() instanceof MappedDevice m) {
                s.append(" live=[").append(m.tableText()).append("] inactive=[").append(m.inactiveTableText())
                        .append("] state=").append(m.state());
            }
            s.append('\n');
        }
        rows(s, jdbc, "SELECT name || ' ' || device_name || ' ' || extent_size_bytes || ' ' || extent_count FROM pools"
                + " WHERE name LIKE ? ORDER BY name", prefix);
        rows(s, jdbc, "SELECT v.name || ' ' || p.name || ' ' || v.extent_count FROM volumes v JOIN pools p ON"
                + " v.pool_id = p.id WHERE p.name LIKE ? ORDER BY v.name", prefix);
        rows(s, jdbc, "SELECT p.name || ' ' || s.owner_kind || ' ' || s.owner_id || ' ' || s.owner_start || ' '"
                + " || s.pool_start || ' ' || s.extent_count FROM pool_segments s JOIN pools p ON s.pool_id = p.id"
                + " WHERE p.name LIKE ? ORDER BY p.name, s.pool_start", prefix);
        rows(s, jdbc, "SELECT name || ' ' || device_name FROM exports WHERE name LIKE ? ORDER BY name", prefix);
        rows(s, jdbc, "SELECT name || ' ' || volume_id || ' ' || extent_count || ' ' || chunk_sectors || ' ' || store"
                + " || ' ' || COALESCE(CAST(merge_exceptions AS VARCHAR), '-') FROM snapshots WHERE name LIKE ?"
                + " ORDER BY name", prefix);
        return s.toString();
    }

    /** Performs a request that must be refused, and checks that nothing named {@code prefix…} changed. */
    public static ResultActions refused(MockMvc mvc, JdbcTemplate jdbc, DeviceRegistry registry, String prefix,
                                        RequestBuilder request) throws Exception {
        String before = of(jdbc, registry, prefix);
        ResultActions result = mvc.perform(request);
        if (!of(jdbc, registry, prefix).equals(before)) {
            throw new AssertionError("a refused request changed " + prefix + "…: before\n" + before + "\nafter\n"
                    + of(jdbc, registry, prefix));
        }
        return result;
    }

    private static void rows(StringBuilder s, JdbcTemplate jdbc, String sql, String prefix) {
        List<String> rows = jdbc.queryForList(sql, String.class, prefix + "%");
        s.append(String.join("\n", rows)).append("\n--\n");
    }
}
