package io.blockwork.nbd;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.nbd.protocol.NbdWire;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A block device offered to NBD clients under a name.
 *
 * @param name what clients ask for ({@code nbd://host:port/NAME}); 1 to 4096 UTF-8 bytes, no NUL
 * @param device the device the export reads and writes
 * @param readOnly refuse writes, trims and zeroing with EPERM, and advertise READ_ONLY
 * @param description shown by {@code nbdinfo}; may be empty, never null
 */
public record NbdExport(String name, BlockDevice device, boolean readOnly, String description) {

    public NbdExport {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
        description = description == null ? "" : description;
        checkString("name", name, false);
        checkString("description", description, true);
    }

    public static NbdExport of(String name, BlockDevice device) {
        return new NbdExport(name, device, false, "");
    }

    public NbdExport readOnly(boolean ro) {
        return new NbdExport(name, device, ro, description);
    }

    public NbdExport withDescription(String text) {
        return new NbdExport(name, device, readOnly, text);
    }

    private static void checkString(String field, String value, boolean mayBeEmpty) {
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (!mayBeEmpty && bytes == 0) {
            throw new IllegalArgumentException("export " + field + " must not be empty");
        }
        if (bytes > NbdWire.MAX_STRING_BYTES) {
            throw new IllegalArgumentException("export " + field + " is " + bytes + " bytes; at most "
                    + NbdWire.MAX_STRING_BYTES + " allowed");
        }
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("export " + field + " must not contain NUL");
        }
    }
}
