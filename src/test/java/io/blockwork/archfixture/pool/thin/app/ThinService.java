package io.blockwork.archfixture.pool.thin.app;

import io.blockwork.archfixture.pool.app.PoolService;

/** The other half of the cycle inside the pool module. */
public class ThinService {
    PoolService pools;
}
