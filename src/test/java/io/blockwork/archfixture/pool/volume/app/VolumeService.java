package io.blockwork.archfixture.pool.volume.app;

import io.blockwork.archfixture.pool.app.PoolService;

/** Depends on pools one way, as it should: no part of any report. */
public class VolumeService {
    PoolService pools;
}
