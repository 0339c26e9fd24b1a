package io.blockwork.archfixture.shared;

/** What the fixture's features stand on. */
public class FixtureFloor {
}
