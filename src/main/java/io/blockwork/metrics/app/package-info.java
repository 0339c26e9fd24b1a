/** The metrics module's application services: what the other modules may call. */
@NamedInterface("app")
package io.blockwork.metrics.app;

import org.springframework.modulith.NamedInterface;
