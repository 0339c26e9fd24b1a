package io.blockwork.archfixture.engine.block;

/** Keeps every rule: plain Java. */
public class CleanBlockClass {
    java.util.List<String> names = java.util.List.of();
}
