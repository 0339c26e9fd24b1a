package io.blockwork.archfixture.engine;

/**
 * Breaks the rule on purpose: an engine class that reaches into Spring. (A field, not a
 * stereotype annotation, so the application's component scan does not pick the fixture up.)
 */
public class SpringTaintedEngineClass {
    org.springframework.context.ApplicationContext context;
}
