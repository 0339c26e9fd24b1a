/** The pool module's application services: what the other modules may call. */
@NamedInterface("app")
package io.blockwork.pool.app;

import org.springframework.modulith.NamedInterface;
