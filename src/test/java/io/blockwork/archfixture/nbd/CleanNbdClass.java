package io.blockwork.archfixture.nbd;

/** Keeps the rule: the NBD server using the block API and the JDK only. */
public class CleanNbdClass {
    io.blockwork.archfixture.engine.block.CleanBlockClass device;
    java.nio.ByteBuffer buffer;
}
