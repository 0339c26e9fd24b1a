package io.blockwork.archfixture.engine.disk;

/** Keeps the engine rule; only the NBD fixture may not use it. */
public class FixtureDisk extends io.blockwork.archfixture.engine.block.CleanBlockClass {
}
