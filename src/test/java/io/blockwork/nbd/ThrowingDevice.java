package io.blockwork.nbd;

import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioOp;
import io.blockwork.engine.block.DeviceLimits;
import io.blockwork.engine.block.IoStatus;

/**
 * A device with a bug, for failure tests: READs throw an OutOfMemoryError out of {@code submit}
 * (what a thread sees when the process runs out of memory); everything else succeeds.
 */
public final class ThrowingDevice extends AbstractBlockDevice {

    public static final String MESSAGE = "injected by the test";

    public ThrowingDevice(String name) {
        super(name);
    }

    @Override
    protected void dispatch(Bio bio) {
        if (bio.op() == BioOp.READ) {
            throw new OutOfMemoryError(MESSAGE);
        }
        bio.endio(IoStatus.OK);
    }

    @Override
    public long sizeBytes() {
        return 1 << 20;
    }

    @Override
    public DeviceLimits limits() {
        return DeviceLimits.of(512);
    }
}
