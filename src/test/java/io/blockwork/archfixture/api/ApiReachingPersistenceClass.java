package io.blockwork.archfixture.api;

/** Breaks the rule on purpose: a controller using an entity directly. */
public class ApiReachingPersistenceClass {
    io.blockwork.archfixture.persistence.FixtureRecord record;
}
