package io.blockwork.archfixture.alpha.app;

/** Breaks the rule on purpose: a service holding a controller's body. */
public class AppReachingWebClass {
    io.blockwork.archfixture.alpha.web.WebReachingStoreClass body;
}
