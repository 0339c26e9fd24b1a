package io.blockwork.service.export;

import io.blockwork.service.device.DeviceNames;
import io.blockwork.service.problem.ProblemException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * A new export as the API takes it. The constructor checks it, blaming the request field at
 * fault: the name follows the block device name rule (it is the last part of an
 * {@code nbd://host:port/NAME} URI) and defaults to the device's name; the description is what
 * {@code nbdinfo} shows. {@code raw} asks to write a device an array or a mapped device holds, where
 * they allow it (see {@link io.blockwork.service.device.Claim}).
 */
public record ExportSpec(String name, String device, boolean readOnly, boolean raw, String description) {

    /** The NBD protocol's limit on a description string. */
    public static final int MAX_DESCRIPTION_BYTES = 4096;
    private static final Pattern NAME = Pattern.compile(DeviceNames.PATTERN);

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
    }
}
