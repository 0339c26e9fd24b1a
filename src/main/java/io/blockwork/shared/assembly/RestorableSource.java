package io.blockwork.shared.assembly;

import java.util.List;

/**
 * Implemented by one bean per feature (disks, arrays, mapped devices, pools, exports): lists what
 * that feature has configured. {@link StartupAssembler} orders the objects of every source together.
 */
public interface RestorableSource {
    List<Restorable> restorables();
}
