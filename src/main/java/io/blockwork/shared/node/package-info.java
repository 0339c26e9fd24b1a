/** A part of the floor that every feature may use. */
@NamedInterface("node")
package io.blockwork.shared.node;

import org.springframework.modulith.NamedInterface;
