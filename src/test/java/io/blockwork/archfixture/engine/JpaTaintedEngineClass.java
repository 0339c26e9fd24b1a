package io.blockwork.archfixture.engine;

/** Breaks the rule on purpose: an engine class using JPA (a field, not @Entity, so entity scanning ignores it). */
public class JpaTaintedEngineClass {
    jakarta.persistence.EntityManager entityManager;
}
