/** The disk module's application services: what the other modules may call. */
@NamedInterface("app")
package io.blockwork.disk.app;

import org.springframework.modulith.NamedInterface;
