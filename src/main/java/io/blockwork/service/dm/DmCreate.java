package io.blockwork.service.dm;

import io.blockwork.engine.dm.EmptyFlush;

/**
 * A new mapped device, as the API takes it.
 *
 * @param uuid null or "" for none
 * @param table null for a device without a table ({@code dmsetup create --notable}): size 0 until
 *              a table is loaded and resumed
 * @param emptyFlush null for the default, {@code per-device}
 */
public record DmCreate(String name, String uuid, TableInput table, EmptyFlush emptyFlush) {
}
