/** The pool module's snapshot part: its application services, which the other modules may call. */
@NamedInterface("snapshot-app")
package io.blockwork.pool.snapshot.app;

import org.springframework.modulith.NamedInterface;
