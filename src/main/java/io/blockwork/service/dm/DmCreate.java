package io.blockwork.service.dm;

/**
 * A new mapped device, as the API takes it.
 *
 * @param uuid null or "" for none
 * @param table null for a device without a table ({@code dmsetup create --notable}): size 0 until
 *              a table is loaded and resumed
 * @param strategies null for the defaults; see {@link DmStrategies}
 */
public record DmCreate(String name, String uuid, TableInput table, DmStrategies strategies) {
}
