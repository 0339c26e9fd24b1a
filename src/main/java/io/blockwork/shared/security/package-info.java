/** A part of the floor that every feature may use. */
@NamedInterface("security")
package io.blockwork.shared.security;

import org.springframework.modulith.NamedInterface;
