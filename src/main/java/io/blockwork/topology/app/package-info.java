/** The topology module's application services: what the other modules may call. */
@NamedInterface("app")
package io.blockwork.topology.app;

import org.springframework.modulith.NamedInterface;
