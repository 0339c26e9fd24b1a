package io.blockwork.shared.device;

import io.blockwork.shared.problem.ProblemException;
import java.util.regex.Pattern;

/** The rule every block device name follows, whatever its kind. */
public final class DeviceNames {

    /** Lower-case, starts with a letter or digit, at most 64 characters; safe as a file name. */
    public static final String PATTERN = "[a-z0-9][a-z0-9._-]{0,63}";
    private static final Pattern COMPILED = Pattern.compile(PATTERN);

    private DeviceNames() {}

    public static boolean valid(String name) {
        return name != null && COMPILED.matcher(name).matches();
    }

    /** Throws validation-failed, blamed on {@code field}, unless {@code name} is a valid device name. */
    public static String require(String name, String field) {
        if (!valid(name)) {
            throw ProblemException.invalid(field,
                    "'" + name + "' is not a valid device name: it must match " + PATTERN);
        }
        return name;
    }
}
