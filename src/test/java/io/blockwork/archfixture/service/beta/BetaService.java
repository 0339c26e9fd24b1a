package io.blockwork.archfixture.service.beta;

import io.blockwork.archfixture.service.alpha.AlphaService;

/** The other half of the cycle. */
public class BetaService {
    AlphaService other;
}
