/** The dm module's application services: what the other modules may call. */
@NamedInterface("app")
package io.blockwork.dm.app;

import org.springframework.modulith.NamedInterface;
