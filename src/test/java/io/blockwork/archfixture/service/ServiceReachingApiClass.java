package io.blockwork.archfixture.service;

/** Breaks the rule on purpose: a service returning a controller's body type. */
public class ServiceReachingApiClass {
    io.blockwork.archfixture.api.ApiReachingPersistenceClass body;
}
