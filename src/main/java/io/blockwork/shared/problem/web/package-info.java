/** A part of the floor that every feature may use. */
@NamedInterface("problem-web")
package io.blockwork.shared.problem.web;

import org.springframework.modulith.NamedInterface;
