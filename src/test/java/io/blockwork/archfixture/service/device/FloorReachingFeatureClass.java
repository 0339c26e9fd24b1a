package io.blockwork.archfixture.service.device;

import io.blockwork.archfixture.service.alpha.AlphaService;

/** Breaks the service floor rule: a floor package that knows a feature. */
public class FloorReachingFeatureClass {
    AlphaService feature;
}
