/** A part of the floor that every feature may use. */
@NamedInterface("json")
package io.blockwork.shared.json;

import org.springframework.modulith.NamedInterface;
