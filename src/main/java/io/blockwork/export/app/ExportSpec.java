package io.blockwork.export.app;

import io.blockwork.nbd.AddressRange;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.problem.Differences;
import io.blockwork.shared.problem.ProblemException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A new export as the API takes it. The constructor checks it, blaming the request field at
 * fault: the name follows the block device name rule (it is the last part of an
 * {@code nbd://host:port/NAME} URI) and defaults to the device's name; the description is what
 * {@code nbdinfo} shows; {@code raw} asks to write a device an array or a mapped device holds, where
 * they allow it (see {@link io.blockwork.shared.device.Claim}); {@code allowedClients} are address blocks in CIDR notation (null: any
 * client), kept in their canonical form without repeats.
 */
public record ExportSpec(String name, String device, boolean readOnly, boolean raw, String description,
                         boolean tlsRequired, List<AddressRange> allowedClients) {

    /** The NBD protocol's limit on a description string. */
    public static final int MAX_DESCRIPTION_BYTES = 4096;
    /** The most address blocks one export lists. */
    public static final int MAX_ALLOWED_CLIENTS = 64;
    private static final Pattern NAME = Pattern.compile(DeviceNames.PATTERN);

    public ExportSpec(String name, String device, boolean readOnly, String description) {
        this(name, device, readOnly, false, description, false, null);
    }

    /** Parses the API's list of address blocks; null stays null (any client). */
    public static List<AddressRange> addressRanges(List<String> texts) {
        if (texts == null) {
            return null;
        }
        if (texts.isEmpty()) {
            throw ProblemException.invalid("allowedClients", "allowedClients must name at least one address block; "
                    + "leave it out to let any client in");
        }
        if (texts.size() > MAX_ALLOWED_CLIENTS) {
            throw ProblemException.invalid("allowedClients", "allowedClients lists " + texts.size()
                    + " address blocks; at most " + MAX_ALLOWED_CLIENTS + " are allowed");
        }
        LinkedHashSet<AddressRange> ranges = new LinkedHashSet<>();
        for (int i = 0; i < texts.size(); i++) {
            try {
                ranges.add(AddressRange.parse(texts.get(i)));
            } catch (IllegalArgumentException e) {
                throw ProblemException.invalid("allowedClients[" + i + "]", e.getMessage());
            }
        }
        return new ArrayList<>(ranges);
    }

    public ExportSpec {
        if (device == null || device.isBlank()) {
            throw ProblemException.invalid("device", "device is required: the name of the block device to export");
        }
        if (name == null) {
            name = device;
        }
        if (!NAME.matcher(name).matches()) {
            throw ProblemException.invalid("name", "'" + name + "' is not a valid export name: it must match "
                    + DeviceNames.PATTERN);
        }
        description = description == null ? "" : description;
        if (description.getBytes(StandardCharsets.UTF_8).length > MAX_DESCRIPTION_BYTES) {
            throw ProblemException.invalid("description", "description is longer than "
                    + MAX_DESCRIPTION_BYTES + " bytes (UTF-8)");
        }
        if (description.indexOf('\0') >= 0) {
            throw ProblemException.invalid("description", "description must not contain NUL characters");
        }
        allowedClients = allowedClients == null ? null : List.copyOf(allowedClients);
    }

    /** How export {@code is} differs from this request (docs/api.md, scripting contract). */
    public Differences differencesFrom(ExportView is) {
        return Differences.of("export", name).field("device", device, is.device())
                .field("readOnly", readOnly, is.readOnly())
                .field("raw", raw, is.raw())
                .field("description", description, is.description())
                .field("tls", tlsRequired, is.tlsRequired())
                // null (any client) is a setting of its own: compared as the empty list, which no create accepts
                .field("allowedClients", allowedClients == null ? List.of() : allowedClientTexts(),
                        is.allowedClients() == null ? List.of() : is.allowedClients());
    }

    /** The blocks in their canonical text, or null for any client. */
    public List<String> allowedClientTexts() {
        return allowedClients == null ? null : allowedClients.stream().map(AddressRange::toString).toList();
    }
}
