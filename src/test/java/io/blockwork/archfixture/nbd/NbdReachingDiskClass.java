package io.blockwork.archfixture.nbd;

/** Breaks the rule on purpose: the NBD server reaching past engine.block into a disk. */
public class NbdReachingDiskClass {
    io.blockwork.archfixture.engine.disk.FixtureDisk disk;
}
