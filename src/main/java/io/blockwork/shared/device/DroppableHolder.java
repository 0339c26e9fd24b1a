package io.blockwork.shared.device;

import io.blockwork.shared.consistency.EngineChanges;

/**
 * A kind of {@link Holder} that a forced delete of its device may remove along with the device,
 * because nothing else depends on it and it keeps no data of its own: an NBD export. Holders
 * that carry data or other devices (arrays, mapped devices, pools) are not droppable: the user
 * removes them first.
 *
 * <p>One bean per such kind; {@link ForcedRemoval} finds them.
 */
public interface DroppableHolder {

    /** The {@link Holder#kind()} this bean removes, e.g. "export". */
    String holderKind();

    /**
     * Removes holder {@code name} as part of the management operation running now: its record,
     * its live object and its claim on the device. Undo steps go to {@code changes}, so a later
     * failure of the operation puts it back; irreversible steps (disconnecting clients) go
     * after the commit.
     */
    void drop(String name, EngineChanges changes);
}
