package io.blockwork.nbd;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Extents;
import io.blockwork.nbd.protocol.NbdWire;
import java.nio.ByteBuffer;

/**
 * The answer to NBD_CMD_BLOCK_STATUS in the {@code base:allocation} context: the device's
 * allocation query, encoded as the payload of one NBD_REPLY_TYPE_BLOCK_STATUS chunk (context id,
 * then a length and state per run). A hole is HOLE|ZERO (Blockwork's holes read as zeros); data
 * is 0. The device never calls a range a hole where data was written, and says data where it
 * cannot tell, so a client that skips holes loses nothing.
 */
final class BlockStatus {

    /** Most descriptors in one reply (16 KiB); the reply may then cover less than was asked, as the spec allows. */
    static final int MAX_EXTENTS = 2048;

    private BlockStatus() {}

    /** The reply payload for {@code [offset, offset+length)}; {@code one}: NBD_CMD_FLAG_REQ_ONE. */
    static ByteBuffer encode(BlockDevice device, long offset, long length, boolean one) {
        Extents extents = new Extents(one ? 1 : MAX_EXTENTS);
        device.allocation(offset, length, extents);
        var runs = extents.extents();
        ByteBuffer b = ByteBuffer.allocate(4 + 8 * runs.size()).putInt(NbdWire.BASE_ALLOCATION_ID);
        for (Extents.Extent e : runs) {
            int state = e.state() == Allocation.HOLE ? NbdWire.STATE_HOLE | NbdWire.STATE_ZERO : 0;
            b.putInt((int) e.length()).putInt(state);
        }
        return b.flip();
    }
}
