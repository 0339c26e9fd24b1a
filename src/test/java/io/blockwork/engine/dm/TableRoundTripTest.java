package io.blockwork.engine.dm;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 1, the property: random valid tables using every target type, written in canonical
 * form, build; print back identically; parse back to an equal spec; and a table built from the
 * printed text prints the same again.
 */
@Tag("unit")
class TableRoundTripTest {

    private static final String[] DEVS = {"d0", "d1", "d2"};
    private static final long DEV_SECTORS = (1L << 30) >> 9;

    private final DmTestDevices devs = new DmTestDevices();

    TableRoundTripTest() {
        for (String d : DEVS) {
            devs.add(Disk.nullDisk(d, 1L << 30, DiskConfig.DEFAULT));
        }
    }

    @Test
    void randomTablesOfEveryTargetSurvivePrintAndParse() {
        Random r = new Random(20240528);
        int[] seen = new int[6];
        for (int round = 0; round < 500; round++) {
            String text = randomTable(r, seen);
            Table t = Table.build(TableSpec.parse(text), devs, devs.config(), null);
            String printed = t.text();
            assertThat(printed).as("round %d", round).isEqualTo(text);
            TableSpec reparsed = TableSpec.parse(printed);
            assertThat(reparsed).isEqualTo(t.spec());
            Table again = Table.build(reparsed, devs, devs.config(), null);
            assertThat(again.text()).isEqualTo(printed);
            assertThat(again.spec()).isEqualTo(t.spec());
            t.close();
            again.close();
        }
        assertThat(java.util.Arrays.stream(seen).min().orElse(0)).as("every target type was generated").isGreaterThan(50);
    }

    private static String randomTable(Random r, int[] seen) {
        int n = 1 + r.nextInt(12);
        StringBuilder s = new StringBuilder();
        long start = 0;
        for (int i = 0; i < n; i++) {
            int kind = r.nextInt(6);
            seen[kind]++;
            long len;
            String args;
            switch (kind) {
                case 0 -> {
                    len = 1 + r.nextInt(100_000);
                    args = "linear " + dev(r, len);
                }
                case 1 -> {
                    int stripes = 1 + r.nextInt(4);
                    long chunk = 8L * (1 + r.nextInt(32));
                    len = stripes * chunk * (1 + r.nextInt(16));
                    StringBuilder a = new StringBuilder("striped " + stripes + " " + chunk);
                    for (int k = 0; k < stripes; k++) {
                        a.append(' ').append(dev(r, len / stripes));
                    }
                    args = a.toString();
                }
                case 2 -> {
                    len = 1 + r.nextInt(1 << 20);
                    args = "zero";
                }
                case 3 -> {
                    len = 1 + r.nextInt(1 << 20);
                    args = "error";
                }
                case 4 -> {
                    len = 1 + r.nextInt(100_000);
                    int classes = 1 + r.nextInt(3);
                    StringBuilder a = new StringBuilder("delay");
                    for (int k = 0; k < classes; k++) {
                        a.append(' ').append(dev(r, len)).append(' ').append(r.nextInt(2000));
                    }
                    args = a.toString();
                }
                default -> {
                    len = 1 + r.nextInt(100_000);
                    args = "flakey " + dev(r, len) + " " + r.nextInt(100) + " " + (1 + r.nextInt(100)) + " " + flakeyFeatures(r);
                }
            }
            s.append(start).append(' ').append(len).append(' ').append(args).append('\n');
            start += len;
        }
        return s.toString();
    }

    private static String dev(Random r, long len) {
        return DEVS[r.nextInt(DEVS.length)] + " " + (long) (r.nextDouble() * (DEV_SECTORS - len));
    }

    /** A valid feature set in the order and form the kernel prints. */
    private static String flakeyFeatures(Random r) {
        boolean errorReads = r.nextBoolean();
        int writes = r.nextInt(3); // none, drop_writes, error_writes
        boolean corrupt = r.nextBoolean();
        boolean corruptWrites = corrupt && writes == 0 && (errorReads || r.nextBoolean());
        if (corrupt && !corruptWrites && errorReads) {
            corrupt = false;
        }
        long randomRead = !errorReads && r.nextInt(4) == 0 ? 1 + r.nextInt(1_000_000_000) : 0;
        long randomWrite = writes == 0 && r.nextInt(4) == 0 ? 1 + r.nextInt(1_000_000_000) : 0;
        List<String> f = new ArrayList<>();
        if (errorReads) {
            f.add("error_reads");
        }
        if (writes == 1) {
            f.add("drop_writes");
        } else if (writes == 2) {
            f.add("error_writes");
        }
        if (corrupt) {
            f.add("corrupt_bio_byte " + (1 + r.nextInt(4096)) + (corruptWrites ? " w " : " r ") + r.nextInt(256)
                    + " " + new long[] {0, 1, 32, 2048, 131072}[r.nextInt(5)]);
        }
        if (randomRead > 0) {
            f.add("random_read_corrupt " + randomRead);
        }
        if (randomWrite > 0) {
            f.add("random_write_corrupt " + randomWrite);
        }
        if (f.isEmpty()) {
            return "2 error_reads error_writes";
        }
        int count = 0;
        for (String x : f) {
            count += x.split(" ").length;
        }
        return count + " " + String.join(" ", f);
    }
}
