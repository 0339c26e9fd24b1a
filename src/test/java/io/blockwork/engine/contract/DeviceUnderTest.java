package io.blockwork.engine.contract;

import io.blockwork.engine.block.BlockDevice;
import java.util.Optional;

/**
 * A device handed to the contract kit, with the hooks the kit needs to go beyond plain I/O.
 *
 * @param device the device to check
 * @param retainsData false for devices whose reads always return zeros (null disks)
 * @param powerCut cuts power to every volatile cache below the device, if they can model one
 * @param breakAll makes every underlying medium fail, so errors must reach the caller
 * @param cleanup releases whatever the device holds
 */
public record DeviceUnderTest(BlockDevice device, boolean retainsData, Optional<Runnable> powerCut,
                              Optional<Runnable> breakAll, Runnable cleanup) {

    public static DeviceUnderTest of(BlockDevice device) {
        return new DeviceUnderTest(device, true, Optional.empty(), Optional.empty(), () -> {});
    }

    public DeviceUnderTest withPowerCut(Runnable cut) {
        return new DeviceUnderTest(device, retainsData, Optional.of(cut), breakAll, cleanup);
    }

    public DeviceUnderTest withBreakAll(Runnable breaker) {
        return new DeviceUnderTest(device, retainsData, powerCut, Optional.of(breaker), cleanup);
    }

    public DeviceUnderTest withCleanup(Runnable c) {
        return new DeviceUnderTest(device, retainsData, powerCut, breakAll, c);
    }

    public DeviceUnderTest discardingData() {
        return new DeviceUnderTest(device, false, powerCut, breakAll, cleanup);
    }
}
