package io.blockwork.engine.dm;

/**
 * One target's status line, for the API's JSON.
 *
 * @param start first sector
 * @param length sectors
 * @param type target type name
 * @param status the target's INFO or TABLE text
 */
public record TargetStatus(long start, long length, String type, String status) {

    /** As {@code dmsetup status} or {@code dmsetup table} prints the line. */
    public String text() {
        return start + " " + length + " " + type + (status.isEmpty() ? "" : " " + status);
    }
}
