package io.blockwork.topology.app;

import java.util.List;
import java.util.Set;

/**
 * What a device needs of the devices under it to keep its data, as it stands now (members that
 * already failed are left out). The blast radius asks it which failures it survives.
 */
public sealed interface Redundancy {

    /** True if the data is gone once {@code failed} (names of the devices under it) are lost. */
    boolean losesData(Set<String> failed);

    /** Needs every device under it: a disk's consumers, linear, raid0, dm tables, volumes, pools, exports. */
    record AllNeeded() implements Redundancy {
        @Override
        public boolean losesData(Set<String> failed) {
            return !failed.isEmpty();
        }
    }

    /**
     * Mirrored data: each set holds copies of some of the data; the data is lost when every
     * member of one set is (raid1: one set of all in-sync legs; raid10: a set per copy group).
     */
    record CopySets(List<Set<String>> sets) implements Redundancy {
        public CopySets {
            sets = List.copyOf(sets);
        }

        @Override
        public boolean losesData(Set<String> failed) {
            return sets.stream().anyMatch(failed::containsAll);
        }
    }

    /** Parity: survives up to {@code tolerates} more lost members (raid4/5: 1, raid6: 2, fewer when degraded). */
    record Parity(int tolerates) implements Redundancy {
        @Override
        public boolean losesData(Set<String> failed) {
            return failed.size() > tolerates;
        }
    }
}
