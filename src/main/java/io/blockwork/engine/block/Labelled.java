package io.blockwork.engine.block;

import java.util.Locale;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * A choice users name in lower case: an API field, a table argument, a fio option. An enum
 * implementing it gets its label from its constant's name ({@code PER_DEVICE} is
 * {@code per-device}), and every such enum refuses an unknown label with the same message, which
 * lists the labels it would take.
 */
public interface Labelled {

    /** The constant's name; every enum has it. */
    String name();

    /** What users type: the name in lower case, {@code _} as {@code -}. */
    default String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The constant of {@code type} labelled {@code label}, if there is one. */
    static <E extends Enum<E> & Labelled> Optional<E> find(Class<E> type, String label) {
        for (E constant : type.getEnumConstants()) {
            if (constant.label().equals(label)) {
                return Optional.of(constant);
            }
        }
        return Optional.empty();
    }

    /**
     * The constant of {@code type} labelled {@code label}.
     *
     * @throws IllegalArgumentException with {@link #unknown}'s message when there is none
     */
    static <E extends Enum<E> & Labelled> E parse(Class<E> type, String label, String what) {
        return find(type, label).orElseThrow(() -> new IllegalArgumentException(unknown(type, label, what)));
    }

    /** "unknown {@code what} '{@code label}' (a, b, c)", naming the labels {@code type} takes. */
    static <E extends Enum<E> & Labelled> String unknown(Class<E> type, String label, String what) {
        StringJoiner choices = new StringJoiner(", ", " (", ")");
        for (E constant : type.getEnumConstants()) {
            choices.add(constant.label());
        }
        return "unknown " + what + " '" + label + "'" + choices;
    }
}
