/** The pool module's thin part: its application services, which the other modules may call. */
@NamedInterface("thin-app")
package io.blockwork.pool.thin.app;

import org.springframework.modulith.NamedInterface;
