package io.blockwork.archfixture.persistence;

public class FixtureRecord {
}
