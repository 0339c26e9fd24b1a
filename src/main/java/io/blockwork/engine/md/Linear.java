package io.blockwork.engine.md;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.Extents;

/**
 * md's linear personality: members one after another. Each member contributes its size rounded
 * down to the rounding factor (mdadm's {@code --rounding}, 0 for none) and the array's block size.
 * A bio crossing from one member into the next is cut in two here, since member ends fall at no
 * regular boundary the core could split at.
 */
final class Linear implements Personality {

    private final BlockDevice[] devices;
    private final long[] offsets;
    /** {@code starts[i]} is where member i begins in the array; {@code starts[n]} the array size. */
    private final long[] starts;
    private final long rounding;

    Linear(Member[] members, long rounding, int blockSize) {
        this.devices = new BlockDevice[members.length];
        this.offsets = new long[members.length];
        this.rounding = rounding;
        this.starts = new long[members.length + 1];
        long unit = Math.max(rounding, blockSize);
        for (int i = 0; i < members.length; i++) {
            devices[i] = members[i].device();
            offsets[i] = members[i].dataOffset();
            long usable = members[i].dataBytes() / unit * unit;
            if (usable <= 0) {
                throw new MdArgumentException("members[" + i + "]", devices[i].name() + " is smaller than one " + unit + "-byte unit");
            }
            starts[i + 1] = starts[i] + usable;
        }
    }

    @Override
    public MdLevel level() {
        return MdLevel.LINEAR;
    }

    @Override
    public long sizeBytes() {
        return starts[devices.length];
    }

    @Override
    public long usedMemberBytes() {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < devices.length; i++) {
            min = Math.min(min, starts[i + 1] - starts[i]);
        }
        return min;
    }

    @Override
    public long boundaryBytes() {
        return 0;
    }

    @Override
    public void submit(Bio bio) {
        int i = memberAt(bio.offset());
        if (bio.end() <= starts[i + 1]) {
            devices[i].submit(bio.remap(offsets[i] + bio.offset() - starts[i]));
            bio.endio();
            return;
        }
        long done = 0;
        while (done < bio.length()) {
            long at = bio.offset() + done;
            while (at >= starts[i + 1]) {
                i++;
            }
            long len = Math.min(bio.length() - done, starts[i + 1] - at);
            devices[i].submit(bio.split(done, len, offsets[i] + at - starts[i]));
            done += len;
        }
        bio.endio();
    }

    @Override
    public void allocation(long offset, long length, Extents out) {
        int i = memberAt(offset);
        long end = offset + length;
        for (long pos = offset; pos < end && !out.stopped(); i++) {
            long len = Math.min(end, starts[i + 1]) - pos;
            devices[i].allocation(offsets[i] + pos - starts[i], len, out);
            pos += len;
        }
    }

    private int memberAt(long offset) {
        int lo = 0;
        int hi = devices.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    @Override
    public boolean survives(MemberSet.Table table) {
        return Personality.everySlotInSync(table);
    }

    @Override
    public String mdstatGeometry() {
        return " " + rounding / 1024 + "k rounding";
    }

    /** The part of {@code m} this array uses (its size rounded down), for the superblock. */
    @Override
    public long recordedDataBytes(Member m) {
        for (int i = 0; i < devices.length; i++) {
            if (devices[i] == m.device()) {
                return starts[i + 1] - starts[i];
            }
        }
        return m.dataBytes();
    }
}
