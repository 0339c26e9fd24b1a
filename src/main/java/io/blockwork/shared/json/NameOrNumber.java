package io.blockwork.shared.json;

import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

/**
 * A field documented to take a name or md's number ({@code "f2"}, {@code 513} or {@code "0x201"}
 * for a raid10 layout): a string as it is, a whole number as its decimal text, anything else
 * refused as strict JSON refuses it (validation-failed naming the field). Strict reading
 * ({@link StrictJson}) would refuse the number, which the field accepts on purpose.
 */
public final class NameOrNumber extends ValueDeserializer<String> {

    @Override
    public String deserialize(JsonParser p, DeserializationContext context) {
        return switch (p.currentToken()) {
            case VALUE_STRING -> p.getString();
            case VALUE_NUMBER_INT -> p.getNumberValue().toString();
            default -> (String) context.handleUnexpectedToken(String.class, p);
        };
    }
}
