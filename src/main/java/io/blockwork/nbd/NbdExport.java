package io.blockwork.nbd;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.nbd.protocol.NbdWire;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A block device offered to NBD clients under a name.
 *
 * @param name what clients ask for ({@code nbd://host:port/NAME}); 1 to 4096 UTF-8 bytes, no NUL
 * @param device the device the export reads and writes
 * @param readOnly refuse writes, trims and zeroing with EPERM, and advertise READ_ONLY
 * @param description shown by {@code nbdinfo}; may be empty, never null
 * @param tlsRequired serve the export only over TLS: a plain-text client does not see it in
 *                    NBD_OPT_LIST and gets NBD_REP_ERR_TLS_REQD for NBD_OPT_GO/INFO (the spec's
 *                    SELECTIVETLS mode)
 * @param allowedClients the client addresses that may see and use the export; empty means any
 */
public record NbdExport(String name, BlockDevice device, boolean readOnly, String description,
                        boolean tlsRequired, List<AddressRange> allowedClients) {

    private static final InetAddress LOOPBACK_V4 = InetAddress.ofLiteral("127.0.0.1");
    private static final InetAddress LOOPBACK_V6 = InetAddress.ofLiteral("::1");

    /** Whether a client may use an export, and if not, why. */
    public enum Access {
        ALLOWED,
        /** The client's address is not in {@link #allowedClients()}. */
        ADDRESS_REFUSED,
        /** The export is served over TLS only and the client has not started TLS. */
        TLS_REQUIRED
    }

    public NbdExport {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
        description = description == null ? "" : description;
        allowedClients = allowedClients == null ? List.of() : List.copyOf(allowedClients);
        checkString("name", name, false);
        checkString("description", description, true);
    }

    public NbdExport(String name, BlockDevice device, boolean readOnly, String description) {
        this(name, device, readOnly, description, false, List.of());
    }

    public static NbdExport of(String name, BlockDevice device) {
        return new NbdExport(name, device, false, "");
    }

    public NbdExport readOnly(boolean ro) {
        return new NbdExport(name, device, ro, description, tlsRequired, allowedClients);
    }

    public NbdExport withDescription(String text) {
        return new NbdExport(name, device, readOnly, text, tlsRequired, allowedClients);
    }

    public NbdExport requireTls(boolean required) {
        return new NbdExport(name, device, readOnly, description, required, allowedClients);
    }

    public NbdExport allowClients(List<AddressRange> ranges) {
        return new NbdExport(name, device, readOnly, description, tlsRequired, ranges);
    }

    /**
     * Whether a client at {@code address}, on TLS or not, may use the export; the address is checked
     * first. A null address is a client on the Unix-domain socket, which has no IP address: it counts
     * as a client on this machine, so an allow-list admits it only if it admits the loopback address
     * (127.0.0.1 or ::1); an export without an allow-list admits it.
     */
    public Access access(InetAddress address, boolean tls) {
        if (!allowedClients.isEmpty() && allowedClients.stream().noneMatch(r -> address == null
                ? r.contains(LOOPBACK_V4) || r.contains(LOOPBACK_V6) : r.contains(address))) {
            return Access.ADDRESS_REFUSED;
        }
        return tlsRequired && !tls ? Access.TLS_REQUIRED : Access.ALLOWED;
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
