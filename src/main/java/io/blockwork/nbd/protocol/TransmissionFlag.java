package io.blockwork.nbd.protocol;

import java.util.EnumSet;
import java.util.Set;

/** Transmission flags the server advertises per export ({@code NBD_FLAG_*}, 16 bits). */
public enum TransmissionFlag {
    HAS_FLAGS(0),
    READ_ONLY(1),
    SEND_FLUSH(2),
    SEND_FUA(3),
    ROTATIONAL(4),
    SEND_TRIM(5),
    SEND_WRITE_ZEROES(6),
    SEND_DF(7),
    CAN_MULTI_CONN(8),
    SEND_RESIZE(9),
    SEND_CACHE(10),
    SEND_FAST_ZERO(11);

    private final int bit;

    TransmissionFlag(int bit) {
        this.bit = bit;
    }

    public int mask() {
        return 1 << bit;
    }

    public static int encode(Set<TransmissionFlag> flags) {
        int v = 0;
        for (TransmissionFlag f : flags) {
            v |= f.mask();
        }
        return v;
    }

    public static Set<TransmissionFlag> decode(int value) {
        EnumSet<TransmissionFlag> out = EnumSet.noneOf(TransmissionFlag.class);
        for (TransmissionFlag f : values()) {
            if ((value & f.mask()) != 0) {
                out.add(f);
            }
        }
        return out;
    }
}
