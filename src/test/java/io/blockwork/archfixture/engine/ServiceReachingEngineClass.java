package io.blockwork.archfixture.engine;

/** Breaks the rule on purpose: the engine calling up into a service. */
public class ServiceReachingEngineClass {
    void call(io.blockwork.archfixture.service.FixtureService service) {
        service.toString();
    }
}
