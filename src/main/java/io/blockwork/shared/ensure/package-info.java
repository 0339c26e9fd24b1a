/** A part of the floor that every feature may use. */
@NamedInterface("ensure")
package io.blockwork.shared.ensure;

import org.springframework.modulith.NamedInterface;
