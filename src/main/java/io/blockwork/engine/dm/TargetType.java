package io.blockwork.engine.dm;

import java.util.Objects;

/**
 * A kind of target, as registered with the kernel ({@code struct target_type}): its name and
 * version, its argument syntax for people and its argument count for the table parser, and the
 * constructor that turns one table line into a {@link Target}.
 *
 * @param name the name used in tables ({@code linear})
 * @param version major, minor, patch, as {@code dmsetup targets} lists them
 * @param syntax the argument syntax, for error messages and docs ({@code <dev> <offset>})
 * @param minArgs fewest arguments a line may give
 * @param maxArgs most arguments a line may give ({@link Integer#MAX_VALUE} for no limit)
 * @param constructor the {@code ctr}
 */
public record TargetType(String name, Version version, String syntax, int minArgs, int maxArgs,
                         Constructor constructor) {

    /** Builds a target from its context and arguments, or says what is wrong with them. */
    @FunctionalInterface
    public interface Constructor {
        Target construct(TargetContext ti, TargetArgs args) throws TargetException;
    }

    public record Version(int major, int minor, int patch) {
        @Override
        public String toString() {
            return major + "." + minor + "." + patch;
        }
    }

    public TargetType {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(syntax, "syntax");
        Objects.requireNonNull(constructor, "constructor");
        if (name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("bad target name '" + name + "'");
        }
        if (minArgs < 0 || maxArgs < minArgs) {
            throw new IllegalArgumentException("bad argument counts " + minArgs + ".." + maxArgs);
        }
    }

    public static Version version(int major, int minor, int patch) {
        return new Version(major, minor, patch);
    }

    /** Checks the count, then runs the constructor. */
    Target construct(TargetContext ti, TargetArgs args) throws TargetException {
        int n = args.count();
        if (n < minArgs || n > maxArgs) {
            String expected = minArgs == maxArgs ? String.valueOf(minArgs)
                    : maxArgs == Integer.MAX_VALUE ? "at least " + minArgs : minArgs + " to " + maxArgs;
            throw new TargetException("Invalid argument count: " + n + " given, " + expected
                    + " expected (" + (syntax.isEmpty() ? "no arguments" : syntax) + ")");
        }
        return constructor.construct(ti, args);
    }
}
