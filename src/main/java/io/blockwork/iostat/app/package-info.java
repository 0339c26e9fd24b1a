/** The iostat module's application services: what the other modules may call. */
@NamedInterface("app")
package io.blockwork.iostat.app;

import org.springframework.modulith.NamedInterface;
