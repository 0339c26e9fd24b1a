package io.blockwork.engine.disk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The radix tree under memory disks: as deep as the size needs, sparse at every level. */
@Tag("unit")
class PageTableTest {

    @Test
    void depthFollowsTheDeclaredSize() {
        assertThat(new PageTable(1 << 20).levels()).isEqualTo(1);
        assertThat(new PageTable(2L << 20).levels()).isEqualTo(1);
        assertThat(new PageTable((2L << 20) + 4096).levels()).isEqualTo(2);
        assertThat(new PageTable(1L << 30).levels()).isEqualTo(2);
        assertThat(new PageTable(1L << 40).levels()).isEqualTo(4);
        assertThat(new PageTable(1L << 60).levels()).isEqualTo(6);
        assertThat(new PageTable(Long.MAX_VALUE - 4095).levels()).isEqualTo(6);
    }

    @Test
    void pagesFarApartAreFoundAndEmptySubtreesSkipped() {
        PageTable t = new PageTable(1L << 60);
        long[] indexes = {0, 511, 512, 1L << 27, (1L << 36) + 5, t.pages() - 1};
        for (long i : indexes) {
            t.set(i, new byte[PageTable.PAGE_SIZE]);
        }
        List<Long> found = new ArrayList<>();
        t.forEachPresent(0, t.pages(), found::add);
        assertThat(found).containsExactly(0L, 511L, 512L, 1L << 27, (1L << 36) + 5, t.pages() - 1);
        List<Long> window = new ArrayList<>();
        t.forEachPresent(1, 1L << 36, window::add);
        assertThat(window).containsExactly(511L, 512L, 1L << 27);
        assertThat(t.get(513)).isNull();
        byte[] last = t.get(t.pages() - 1);
        assertThat(t.clear(t.pages() - 1, last)).isTrue();
        assertThat(t.get(t.pages() - 1)).isNull();
    }
}
