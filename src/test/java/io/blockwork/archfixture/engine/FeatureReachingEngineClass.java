package io.blockwork.archfixture.engine;

/** Breaks the rule on purpose: the engine calling up into a feature's service. */
public class FeatureReachingEngineClass {
    String call(io.blockwork.archfixture.alpha.app.AlphaService service) {
        return service.toString();
    }
}
