package io.blockwork.shared.device;

import io.blockwork.engine.block.Labelled;

/**
 * How a holder uses a device it holds. The {@link DeviceRegistry} decides from these, in one place,
 * who else may hold the device and who may write it:
 *
 * <pre>
 *  new claim ↓ / held as →   OWNER*   TABLE   READER   WRITER   RAW_WRITER
 *  OWNER, OWNER_ALLOWING_RAW   no       no      no       no       no
 *  TABLE                       no       yes     yes      no       no
 *  READER                      no       yes     yes      yes      yes
 *  WRITER                      no       no      yes      yes      yes
 *  RAW_WRITER                  raw*     yes     yes      yes      yes
 * </pre>
 * (raw*: only {@link #OWNER_ALLOWING_RAW}.) A write through the REST data endpoints follows the
 * {@link #WRITER} row (or {@link #RAW_WRITER} when it asks for raw access) without holding the
 * device. Mapped devices share what they map, as the kernel's one device-mapper claim lets
 * tables share a disk; an owner lets nothing else in. Hidden devices take no claim from outside.
 */
public enum Claim implements Labelled {
    /** Owns the device alone: a pool's device, a snapshot's store, a volume's origin. */
    OWNER,
    /**
     * Owns the device alone, but lets a writer in that explicitly asks for raw access: an md
     * array's member (damaging one member on purpose is how one tests {@code check} and {@code repair}).
     */
    OWNER_ALLOWING_RAW,
    /** Maps the device in a table: shared with other tables and with readers; raw writers may come in. */
    TABLE,
    /** Reads the device from outside: a read-only NBD export. */
    READER,
    /** Writes the device from outside: an NBD export. */
    WRITER,
    /** Writes from outside where owners and tables allow raw access, because the request asked for it. */
    RAW_WRITER;

    /** The device is in use by this holder: it builds something on it (array, pool, snapshot, table). */
    public boolean builds() {
        return this == OWNER || this == OWNER_ALLOWING_RAW || this == TABLE;
    }

    /** A writer asking for raw access may write the device while this holder holds it. */
    public boolean allowsRaw() {
        return this == OWNER_ALLOWING_RAW || this == TABLE;
    }

    /** A claim from outside the engine's own stacking (an export), which hidden devices refuse. */
    public boolean outside() {
        return !builds();
    }

    /** May a holder claim the device this way while another holds it as {@code held}? */
    boolean compatibleWith(Claim held) {
        return switch (this) {
            case OWNER, OWNER_ALLOWING_RAW -> false;
            case TABLE -> held == TABLE || held == READER;
            case READER -> !held.isOwner();
            case WRITER -> !held.builds();
            case RAW_WRITER -> !held.builds() || held.allowsRaw();
        };
    }

    boolean isOwner() {
        return this == OWNER || this == OWNER_ALLOWING_RAW;
    }
}
