/** A part of the floor that every feature may use. */
@NamedInterface("assembly")
package io.blockwork.shared.assembly;

import org.springframework.modulith.NamedInterface;
