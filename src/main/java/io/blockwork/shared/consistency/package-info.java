/** A part of the floor that every feature may use. */
@NamedInterface("consistency")
package io.blockwork.shared.consistency;

import org.springframework.modulith.NamedInterface;
