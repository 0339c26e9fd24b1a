/** A part of the floor that every feature may use. */
@NamedInterface("event")
package io.blockwork.shared.event;

import org.springframework.modulith.NamedInterface;
