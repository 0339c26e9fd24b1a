package io.blockwork.archfixture.pool.app;

import io.blockwork.archfixture.pool.thin.app.ThinService;

/** Breaks the rule on purpose: pools knowing thin, which stands on them (a cycle inside the pool module). */
public class PoolService {
    ThinService thin;
}
