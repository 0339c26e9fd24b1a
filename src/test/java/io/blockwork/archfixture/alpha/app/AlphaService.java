package io.blockwork.archfixture.alpha.app;

import io.blockwork.archfixture.beta.app.BetaService;
import io.blockwork.archfixture.shared.FixtureFloor;

/** Half of a cycle between two modules (alpha and beta), and a feature standing on the floor. */
public class AlphaService {
    BetaService other;
    FixtureFloor floor;
}
