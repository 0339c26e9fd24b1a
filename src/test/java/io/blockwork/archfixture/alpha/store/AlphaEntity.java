package io.blockwork.archfixture.alpha.store;

/** An entity of module alpha, in a part it does not name: internal to alpha. */
public class AlphaEntity {
}
