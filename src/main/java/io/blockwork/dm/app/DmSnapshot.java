package io.blockwork.dm.app;

import io.blockwork.engine.dm.DeviceInfo;
import io.blockwork.engine.dm.DeviceLookup;
import io.blockwork.engine.dm.MappedDevice;

/**
 * A mapped device's configuration at one moment (its tables as text and whether it is
 * suspended), and how to bring the device back to it: the undo of every lifecycle operation.
 *
 * <p>Rebuilt tables are new target instances of the same text; I/O that went through the device
 * in between stays done. A device that had no live table cannot lose the one it gained (dm has
 * no way back to "no table" but remove), so that case keeps the newer live table.
 *
 * @param live the live table text, "" for none
 * @param inactive the inactive table text, "" for none
 */
record DmSnapshot(String live, String inactive, boolean suspended) {

    static DmSnapshot of(MappedDevice d) {
        return new DmSnapshot(d.tableText(), d.inactiveTableText(), d.state() == DeviceInfo.State.SUSPENDED);
    }

    /** Loads and resumes into the old live table if it changed, then restores the suspended state and the inactive table. */
    void restore(MappedDevice d, DeviceLookup lookup) {
        if (equals(of(d))) {
            return;
        }
        if (!live.isEmpty() && !live.equals(d.tableText())) {
            d.load(live, lookup);
            d.resume();
        }
        d.clear();
        if (suspended) {
            d.suspend();
        } else {
            d.resume();
        }
        if (!inactive.isEmpty()) {
            d.load(inactive, lookup);
        }
    }
}
