/** The array module's application services: what the other modules may call. */
@NamedInterface("app")
package io.blockwork.array.app;

import org.springframework.modulith.NamedInterface;
