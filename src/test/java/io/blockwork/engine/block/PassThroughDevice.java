package io.blockwork.engine.block;

/** Passes every bio on to the device below: the base of test devices that watch or bend the traffic. */
public class PassThroughDevice extends AbstractBlockDevice {

    protected final BlockDevice below;

    public PassThroughDevice(String name, BlockDevice below) {
        super(name);
        this.below = below;
    }

    @Override
    protected void dispatch(Bio bio) {
        below.submit(bio.remap(bio.offset()));
        bio.endio();
    }

    @Override
    public long sizeBytes() {
        return below.sizeBytes();
    }

    @Override
    public DeviceLimits limits() {
        return below.limits();
    }
}
