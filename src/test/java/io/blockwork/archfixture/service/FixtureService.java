package io.blockwork.archfixture.service;

public class FixtureService {
}
