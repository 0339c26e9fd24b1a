package io.blockwork.archfixture.beta.web;

/** Breaks the rule on purpose: module beta using a type alpha keeps to itself. */
public class InternalsReachingClass {
    io.blockwork.archfixture.alpha.store.AlphaEntity entity;
}
