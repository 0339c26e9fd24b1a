package io.blockwork.archfixture.shared;

import io.blockwork.archfixture.alpha.app.AlphaService;

/** Breaks the rule on purpose: the floor knowing a feature, which stands on it (a cycle). */
public class FloorReachingFeatureClass {
    AlphaService feature;
}
