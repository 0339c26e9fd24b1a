package io.blockwork.archfixture.alpha.web;

/** Breaks the rule on purpose: a controller using an entity directly. */
public class WebReachingStoreClass {
    io.blockwork.archfixture.alpha.store.AlphaEntity entity;
}
