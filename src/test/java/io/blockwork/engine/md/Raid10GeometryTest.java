package io.blockwork.engine.md;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * raid10 placement: the kernel_lineage brief's worked examples as fixed cases, and near, far and
 * offset layouts on 2-8 disks with 2-3 copies (and a few combined ones) against the independent
 * {@link Raid10Model}.
 */
@Tag("unit")
class Raid10GeometryTest {

    /** The brief's examples use 1024-sector (512 KiB) chunks. */
    private static final long CHUNK = 1024;
    private static final long MEMBER = 100 * CHUNK;

    private static Raid10Geometry geo(String layout, int disks) {
        return Raid10Geometry.of(Raid10Layout.parse(layout), disks, CHUNK, MEMBER);
    }

    private static void assertCopies(Raid10Geometry g, long sector, int[] devs, long[] sectors) {
        int[] d = new int[g.copies()];
        long[] s = new long[g.copies()];
        g.findPhys(sector, d, s);
        assertThat(d).containsExactly(devs);
        assertThat(s).containsExactly(sectors);
    }

    @Test
    void nearTwoOnThreeDisksChunkOneIsOnDiskTwoThenDiskZeroOneChunkDown() {
        assertCopies(geo("n2", 3), CHUNK, new int[] {2, 0}, new long[] {0, CHUNK});
    }

    @Test
    void farTwoOnFourDisksChunkFiveIsOnDiskOneThenDiskTwoOneStrideDown() {
        Raid10Geometry g = geo("f2", 4);
        assertThat(g.stride()).isEqualTo(50 * CHUNK);
        assertCopies(g, 5 * CHUNK, new int[] {1, 2}, new long[] {CHUNK, g.stride() + CHUNK});
    }

    @Test
    void offsetTwoOnFourDisksChunkFiveIsInRowsTwoAndThree() {
        Raid10Geometry g = geo("o2", 4);
        assertThat(g.stride()).isEqualTo(CHUNK);
        assertCopies(g, 5 * CHUNK, new int[] {1, 2}, new long[] {2 * CHUNK, 3 * CHUNK});
    }

    @Test
    void anOffsetInsideTheChunkCarriesOver() {
        assertCopies(geo("o2", 4), 5 * CHUNK + 7, new int[] {1, 2}, new long[] {2 * CHUNK + 7, 3 * CHUNK + 7});
    }

    @Test
    void sizesAreMdadms() {
        assertThat(geo("n2", 4).arraySectors()).isEqualTo(200 * CHUNK);
        assertThat(geo("n2", 3).arraySectors()).isEqualTo(150 * CHUNK);
        assertThat(geo("f2", 3).arraySectors()).isEqualTo(150 * CHUNK);
        assertThat(geo("n3", 4).arraySectors()).isEqualTo(133 * CHUNK);
        assertThat(geo("n2", 4).devSectors()).isEqualTo(MEMBER);
    }

    private static final List<String> LAYOUTS = List.of("n2", "n3", "f2", "f3", "o2", "o3",
            "0x202", "0x302", "0x203", "0x10202");

    /** Every accepted geometry for 2-8 disks, against the model, with random chunks and member sizes. */
    @Test
    void layoutsMatchTheIndependentModel() {
        Random rnd = new Random(20240601);
        int geometries = 0;
        long places = 0;
        for (int round = 0; round < 12; round++) {
            for (int disks = 2; disks <= 8; disks++) {
                for (String name : LAYOUTS) {
                    Raid10Layout layout = Raid10Layout.parse(name);
                    if (layout.copies() > disks || (layout.offset() && layout.near() > 1 && disks % layout.near() != 0)) {
                        continue;
                    }
                    long chunk = 8L << rnd.nextInt(9);
                    long memberChunks = layout.copies() + rnd.nextInt(48);
                    long memberSectors = memberChunks * chunk + rnd.nextInt((int) chunk);
                    Raid10Geometry g = Raid10Geometry.of(layout, disks, chunk, memberSectors);
                    Raid10Model model = new Raid10Model(disks, layout.near(), layout.far(), layout.offset(), memberChunks);
                    places += checkAgainstModel(g, model, chunk, rnd);
                    geometries++;
                }
            }
        }
        assertThat(geometries).isGreaterThan(400);
        assertThat(places).isGreaterThan(50_000);
    }

    private static long checkAgainstModel(Raid10Geometry g, Raid10Model model, long chunk, Random rnd) {
        String what = g.toString();
        assertThat(g.arraySectors()).as("%s: array size", what).isEqualTo(model.arrayChunks() * chunk);
        assertThat(g.devSectors()).as("%s: fits the member", what).isLessThanOrEqualTo(model.memberChunks() * chunk);
        int[] devs = new int[g.copies()];
        long[] sectors = new long[g.copies()];
        Set<Long> used = new HashSet<>();
        long checked = 0;
        for (long c = 0; c < model.arrayChunks(); c++) {
            long in = rnd.nextLong(chunk);
            long v = c * chunk + in;
            g.findPhys(v, devs, sectors);
            List<Raid10Model.Place> expected = model.places(c);
            Set<Integer> disks = new HashSet<>();
            for (int k = 0; k < g.copies(); k++) {
                Raid10Model.Place p = expected.get(k);
                assertThat(devs[k]).as("%s: chunk %d copy %d disk", what, c, k).isEqualTo(p.disk());
                assertThat(sectors[k]).as("%s: chunk %d copy %d sector", what, c, k).isEqualTo(p.row() * chunk + in);
                assertThat(sectors[k]).as("%s: inside the used area", what).isLessThan(g.devSectors());
                assertThat(g.findVirt(sectors[k], devs[k])).as("%s: find_virt inverts find_phys", what).isEqualTo(v);
                assertThat(used.add(p.row() * 64 + devs[k])).as("%s: place used twice", what).isTrue();
                disks.add(devs[k]);
                checked++;
            }
            assertThat(disks).as("%s: copies of chunk %d on distinct disks", what, c).hasSize(g.copies());
        }
        // Reassembly recomputes the geometry from the used device size: nothing may move.
        Raid10Geometry again = Raid10Geometry.of(g.layout(), g.disks(), chunk, g.devSectors());
        assertThat(again.arraySectors()).as("%s: reassembled size", what).isEqualTo(g.arraySectors());
        assertThat(again.stride()).as("%s: reassembled stride", what).isEqualTo(g.stride());
        return checked;
    }

    @Test
    void badGeometriesNameTheField() {
        assertThatThrownBy(() -> geo("n3", 2)).isInstanceOf(MdArgumentException.class).hasMessageStartingWith("members: ");
        assertThatThrownBy(() -> geo("0x10202", 5)).isInstanceOf(MdArgumentException.class).hasMessageStartingWith("layout: ");
        assertThatThrownBy(() -> Raid10Geometry.of(Raid10Layout.N2, 4, 24, MEMBER)).hasMessageStartingWith("chunk: ");
        assertThatThrownBy(() -> Raid10Geometry.of(Raid10Layout.parse("f2"), 4, CHUNK, CHUNK)).hasMessageStartingWith("members: ");
    }
}
