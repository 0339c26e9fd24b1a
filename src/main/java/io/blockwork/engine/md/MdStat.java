package io.blockwork.engine.md;

import java.util.List;

/**
 * {@code /proc/mdstat}, rendered as md's {@code md_seq_show} and {@code status_resync} print it,
 * so that the tools which parse it (monitoring scripts, exporters) can parse ours:
 *
 * <pre>
 * Personalities : [linear] [raid0] [raid1] [raid10]
 * md0 : active raid10 d3[3] d2[2] d1[1] d0[0]
 *       2093056 blocks super non-persistent 512K chunks 2 near-copies [4/4] [UUUU]
 *       [=&gt;...................]  recovery =  8.5% (89024/1046528) finish=0.1min speed=89024K/sec
 *
 * unused devices: &lt;none&gt;
 * </pre>
 *
 * Members are listed newest first with md's flags ({@code (F)} failed, {@code (S)} spare,
 * {@code (R)} replacement); "super 1.2" for arrays with md superblocks, "super non-persistent" for
 * those without, and md's bitmap line for arrays with a write-intent bitmap. An array
 * that serves no I/O shows as "inactive". A paused sync shows its bar followed by "paused"
 * where md would show nothing.
 */
public final class MdStat {

    private MdStat() {}

    public static String render(List<MdArray> arrays) {
        StringBuilder s = new StringBuilder("Personalities : ");
        for (MdLevel l : MdLevel.values()) {
            s.append('[').append(l.label()).append("] ");
        }
        s.append('\n');
        for (MdArray a : arrays) {
            array(s, a, a.detail());
        }
        return s.append("unused devices: <none>\n").toString();
    }

    private static void array(StringBuilder s, MdArray a, MdDetail d) {
        s.append(d.name()).append(" : ").append(d.inactiveReason() == null ? "active " : "inactive ").append(d.level());
        List<Member> all = a.members().all();
        for (int i = all.size() - 1; i >= 0; i--) {
            Member m = all.get(i);
            s.append(' ').append(m.name()).append('[').append(m.number()).append(']');
            if (m.state() == MemberState.FAULTY) {
                s.append("(F)");
            } else if (m.state() == MemberState.SPARE) {
                s.append("(S)");
            } else if (m.replacement()) {
                s.append("(R)");
            }
        }
        s.append("\n      ").append(d.sizeBytes() / 1024).append(" blocks super ")
                .append(a.spec().metadata().present() ? a.spec().metadata().format().label() : "non-persistent");
        s.append(a.personality().mdstatGeometry());
        if (a.spec().level().redundant()) {
            s.append(" [").append(d.raidDevices()).append('/').append(d.activeDevices()).append("] [");
            MemberSet.Table t = a.members().table();
            for (Member m : t.slots()) {
                s.append(m != null && m.state() == MemberState.IN_SYNC ? 'U' : '_');
            }
            s.append(']');
        }
        s.append("\n      ");
        if (d.sync().action() != SyncAction.IDLE) {
            progress(s, d.sync());
            s.append("\n      ");
        }
        var bitmap = a.metadata().bitmap();
        if (bitmap != null) {
            // md_bitmap_status: counter pages in use / in all, their KiB, the chunk
            int[] pages = bitmap.counterPages();
            s.append(String.format("bitmap: %d/%d pages [%dKB], %dKB chunk", pages[0], pages[1], pages[0] * 4,
                    bitmap.chunkBytes() / 1024)).append("\n      ");
        }
        s.append('\n');
    }

    /** status_resync: the bar, percent with one decimal, KiB done/total, finish in minutes, speed. */
    static void progress(StringBuilder s, SyncStatus p) {
        long done = p.doneBytes() >>> 9;
        long max = p.totalBytes() >>> 9;
        int scale = 10;
        int perMilli = (int) (((done >>> scale) * 1000) / ((max >>> scale) + 1));
        int x = perMilli / 50;
        s.append('[').append("=".repeat(x)).append('>').append(".".repeat(20 - x)).append("] ");
        String what = switch (p.action()) {
            case CHECK -> "check";
            case RECOVER -> "recovery";
            default -> "resync";
        };
        s.append(String.format(" %s =%3d.%d%% (%d/%d)", what, perMilli / 10, perMilli % 10, done / 2, max / 2));
        if (p.paused()) {
            s.append(" paused");
            return;
        }
        long remainingKiB = (max - done) / 2;
        long rt = p.speedKiBps() > 0 ? remainingKiB / p.speedKiBps() : 0;
        s.append(String.format(" finish=%d.%dmin speed=%dK/sec", rt / 60, (rt % 60) / 6, p.speedKiBps()));
    }
}
