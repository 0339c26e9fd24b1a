package io.blockwork.array.app;

import java.util.List;

/**
 * {@code mdadm --assemble} from the devices alone, as plain values from the API.
 *
 * @param name the array's name; null for the name its superblocks carry
 * @param devices the devices to look at, in any order
 * @param flushStrategy seed 000's strategy; null for the default
 * @param barrierStrategy seed 001's strategy; null for the default
 * @param speedMinBytes resync/recovery floor, bytes per second; null for md's default
 * @param speedMaxBytes resync/recovery ceiling, bytes per second; null for md's default
 */
public record ArrayAssemble(String name, List<String> devices, String flushStrategy, String barrierStrategy,
                            Long speedMinBytes, Long speedMaxBytes) {

    public ArrayAssemble {
        devices = devices == null ? List.of() : List.copyOf(devices);
    }
}
