/** The system module's application services: what the other modules may call. */
@NamedInterface("app")
package io.blockwork.system.app;

import org.springframework.modulith.NamedInterface;
