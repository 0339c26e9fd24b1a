/** A part of the floor that every feature may use. */
@NamedInterface("openapi")
package io.blockwork.shared.openapi;

import org.springframework.modulith.NamedInterface;
