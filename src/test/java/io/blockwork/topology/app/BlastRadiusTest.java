package io.blockwork.topology.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.topology.app.BlastRadius.Impact;
import io.blockwork.topology.app.BlastRadius.Node;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class BlastRadiusTest {

    private static final Redundancy ALL = new Redundancy.AllNeeded();

    /**
     * md10: raid10 n2 over d1..d4 (copies on d1+d2 and d3+d4), md0: raid0 over d5+d6, a pool with
     * one volume on each, a snapshot of v10 and an export of v0.
     */
    private static final List<Node> STACK = List.of(
            new Node("md10", List.of("d1", "d2", "d3", "d4"),
                    new Redundancy.CopySets(List.of(Set.of("d1", "d2"), Set.of("d3", "d4")))),
            new Node("md0", List.of("d5", "d6"), ALL),
            new Node("pool:p10", List.of("md10"), ALL),
            new Node("pool:p0", List.of("md0"), ALL),
            new Node("v10", List.of("pool:p10"), ALL),
            new Node("s10", List.of("v10"), ALL),
            new Node("v0", List.of("pool:p0"), ALL),
            new Node("export:v0", List.of("v0"), ALL));

    @Test
    void oneRaid10MemberCostsRedundancyButNoData() {
        Impact i = BlastRadius.of(STACK, Set.of("d1"));
        assertThat(i.losesData()).isEmpty();
        assertThat(i.losesRedundancy()).containsExactly("md10", "pool:p10", "s10", "v10");
    }

    @Test
    void bothCopiesOfAChunkLoseTheRaid10AndEverythingOnIt() {
        Impact i = BlastRadius.of(STACK, Set.of("d1", "d2"));
        assertThat(i.losesData()).containsExactly("md10", "pool:p10", "s10", "v10");
        assertThat(i.losesRedundancy()).isEmpty();
    }

    @Test
    void oneMemberOfEachCopySetOnlyDegrades() {
        assertThat(BlastRadius.of(STACK, Set.of("d1", "d3")).losesData()).isEmpty();
    }

    @Test
    void anyRaid0MemberLosesItsVolumeAndExportButNotTheOtherStack() {
        Impact i = BlastRadius.of(STACK, Set.of("d6"));
        assertThat(i.losesData()).containsExactly("export:v0", "md0", "pool:p0", "v0");
        assertThat(i.losesRedundancy()).isEmpty();
        assertThat(i.failed()).containsExactly("d6");
    }

    @Test
    void parityToleratesAsManyAsItsLevelAllows() {
        List<Node> raid6 = List.of(new Node("md6", List.of("a", "b", "c", "d"), new Redundancy.Parity(2)),
                new Node("v", List.of("md6"), ALL));
        assertThat(BlastRadius.of(raid6, Set.of("a", "b")).losesRedundancy()).containsExactly("md6", "v");
        assertThat(BlastRadius.of(raid6, Set.of("a", "b", "c")).losesData()).containsExactly("md6", "v");
    }

    @Test
    void aMirrorOfStripesDegradesWhenOneStripeIsLost() {
        // raid1 over two raid0s: losing one raid0 member loses that leg only
        List<Node> stack = List.of(new Node("r0a", List.of("a1", "a2"), ALL), new Node("r0b", List.of("b1", "b2"), ALL),
                new Node("m", List.of("r0a", "r0b"), new Redundancy.CopySets(List.of(Set.of("r0a", "r0b")))));
        Impact i = BlastRadius.of(stack, Set.of("a1"));
        assertThat(i.losesData()).containsExactly("r0a");
        assertThat(i.losesRedundancy()).containsExactly("m");
    }

    @Test
    void nothingFailedTouchesNothing() {
        Impact i = BlastRadius.of(STACK, Set.of());
        assertThat(i.losesData()).isEmpty();
        assertThat(i.losesRedundancy()).isEmpty();
    }
}
