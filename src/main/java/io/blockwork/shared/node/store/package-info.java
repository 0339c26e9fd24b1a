/** A part of the floor that every feature may use. */
@NamedInterface("node-store")
package io.blockwork.shared.node.store;

import org.springframework.modulith.NamedInterface;
