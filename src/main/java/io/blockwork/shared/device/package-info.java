/** A part of the floor that every feature may use. */
@NamedInterface("device")
package io.blockwork.shared.device;

import org.springframework.modulith.NamedInterface;
