package io.blockwork.archfixture.beta.app;

import io.blockwork.archfixture.alpha.app.AlphaService;

/** The other half of the cycle between alpha and beta. */
public class BetaService {
    AlphaService other;
}
