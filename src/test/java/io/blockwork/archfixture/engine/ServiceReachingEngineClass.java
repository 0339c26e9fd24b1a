package io.blockwork.archfixture.engine;

/** Breaks the rule on purpose: the engine calling up into a service. */
public class ServiceReachingEngineClass {
    String call(io.blockwork.archfixture.service.FixtureService service) {
        return service.toString();
    }
}
