package io.blockwork.archfixture.engine;

/** Breaks the rule on purpose: Jackson annotations on an engine class. */
public class Jackson2TaintedEngineClass {
    @com.fasterxml.jackson.annotation.JsonProperty
    String name;
}
