/** The workload module's application services: what the other modules may call. */
@NamedInterface("app")
package io.blockwork.workload.app;

import org.springframework.modulith.NamedInterface;
