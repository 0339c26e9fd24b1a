package io.blockwork.archfixture.service.alpha;

import io.blockwork.archfixture.service.beta.BetaService;

/** Half of a cycle between two service features. */
public class AlphaService {
    BetaService other;
}
