/** The pool module's volume part: its application services, which the other modules may call. */
@NamedInterface("volume-app")
package io.blockwork.pool.volume.app;

import org.springframework.modulith.NamedInterface;
