/** A part of the floor that every feature may use. */
@NamedInterface("units")
package io.blockwork.shared.units;

import org.springframework.modulith.NamedInterface;
