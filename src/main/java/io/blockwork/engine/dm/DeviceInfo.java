package io.blockwork.engine.dm;

/**
 * A mapped device's state, as {@code dmsetup info} shows it.
 *
 * @param name the device name
 * @param uuid the uuid, or "" if none was given
 * @param state ACTIVE, SUSPENDED or REMOVED
 * @param openCount opens recorded by the service (exports, stacked users)
 * @param eventNumber bumped on every table swap and every target event
 * @param liveTable a table is live
 * @param inactiveTable a table is loaded and waits for resume
 * @param targetCount targets in the live table
 * @param sizeSectors size of the live table
 */
public record DeviceInfo(String name, String uuid, State state, int openCount, long eventNumber,
                         boolean liveTable, boolean inactiveTable, int targetCount, long sizeSectors) {

    public enum State { ACTIVE, SUSPENDED, REMOVED }

    /** The {@code dmsetup info} layout (without the kernel-only read-ahead and major/minor lines). */
    public String text() {
        String tables = liveTable && inactiveTable ? "LIVE & INACTIVE"
                : liveTable ? "LIVE" : inactiveTable ? "INACTIVE" : "None";
        StringBuilder s = new StringBuilder()
                .append(String.format("%-19s%s\n", "Name:", name))
                .append(String.format("%-19s%s\n", "State:", state))
                .append(String.format("%-19s%s\n", "Tables present:", tables))
                .append(String.format("%-19s%d\n", "Open count:", openCount))
                .append(String.format("%-19s%d\n", "Event number:", eventNumber))
                .append(String.format("%-19s%d\n", "Number of targets:", targetCount));
        if (!uuid.isEmpty()) {
            s.append("UUID: ").append(uuid).append('\n');
        }
        return s.toString();
    }
}
