/** The export module's application services: what the other modules may call. */
@NamedInterface("app")
package io.blockwork.export.app;

import org.springframework.modulith.NamedInterface;
