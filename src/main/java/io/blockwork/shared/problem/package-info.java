/** A part of the floor that every feature may use. */
@NamedInterface("problem")
package io.blockwork.shared.problem;

import org.springframework.modulith.NamedInterface;
