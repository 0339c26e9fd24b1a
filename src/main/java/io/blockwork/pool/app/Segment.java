package io.blockwork.pool.app;

import io.blockwork.engine.dm.TableSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * One run of an owner's extents: its extents {@code ownerStart ..} lie at the pool's extents
 * {@code poolStart ..}, {@code count} of them. An owner's segments, in owner order, cover its extent
 * space from 0 without gaps.
 */
public record Segment(long ownerStart, long poolStart, long count) {

    public long ownerEnd() {
        return ownerStart + count;
    }

    /**
     * The table of an owner's extent space, as LVM builds a logical volume: one {@code linear}
     * target per segment over the pool's device, in sectors.
     */
    public static TableSpec table(String poolDevice, long extentSizeBytes, List<Segment> segments) {
        long sectorsPerExtent = extentSizeBytes >> 9;
        List<TableSpec.Line> lines = new ArrayList<>(segments.size());
        for (Segment s : segments) {
            lines.add(new TableSpec.Line(lines.size() + 1, s.ownerStart() * sectorsPerExtent,
                    s.count() * sectorsPerExtent, "linear",
                    List.of(poolDevice, Long.toString(s.poolStart() * sectorsPerExtent))));
        }
        return new TableSpec(lines);
    }
}
