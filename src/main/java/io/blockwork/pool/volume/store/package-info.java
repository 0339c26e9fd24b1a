/**
 * Its JPA entities and repositories: named for the event stream, whose entity listener names the
 * object of every row it sees change (event/app/EntityRefs).
 */
@NamedInterface("volume-store")
package io.blockwork.pool.volume.store;

import org.springframework.modulith.NamedInterface;
