/** What the event stream says of the stored objects: entity changes as events (the hub itself is the floor's). */
@NamedInterface("app")
package io.blockwork.event.app;

import org.springframework.modulith.NamedInterface;
