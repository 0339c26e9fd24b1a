package io.blockwork.dm.app;

import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.TargetStatus;
import io.blockwork.shared.assembly.ObjectState;
import java.time.Instant;
import java.util.List;

/**
 * A mapped device as the API shows it: its configuration, plus what its live engine object reports.
 *
 * @param uuid null when it has none
 * @param table the live table as {@code dmsetup table} prints it, "" for none
 * @param inactiveTable the table waiting for resume, null for none
 * @param suspended whether it is (or, when not active, is configured to be) suspended
 * @param strategies the mechanisms chosen at creation
 * @param info {@code dmsetup info}; null when the device is not active
 * @param status the live table's INFO status lines; null when the device is not active
 * @param node the node whose instance assembles and changes the device
 */
public record DmView(String name, String uuid, String table, String inactiveTable, boolean suspended,
                     DmStrategies strategies, DeviceInfo info, List<TargetStatus> status, ObjectState state,
                     Instant createdAt, String node) {
}
