/**
 * Its JPA entities and repositories: named for the event stream, whose entity listener names the
 * object of every row it sees change (event/app/EntityRefs).
 */
@NamedInterface("store")
package io.blockwork.pool.store;

import org.springframework.modulith.NamedInterface;
