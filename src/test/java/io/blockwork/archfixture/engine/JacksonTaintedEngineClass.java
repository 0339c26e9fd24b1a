package io.blockwork.archfixture.engine;

/** Breaks the rule on purpose: an engine class that serializes itself with Jackson 3. */
public class JacksonTaintedEngineClass {
    String json(tools.jackson.databind.ObjectMapper mapper) {
        return mapper.writeValueAsString(this);
    }
}
