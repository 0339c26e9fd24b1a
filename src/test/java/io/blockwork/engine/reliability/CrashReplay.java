package io.blockwork.engine.reliability;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.dm.targets.logwrites.LogReplayer;
import io.blockwork.engine.dm.targets.logwrites.WriteLog;
import io.blockwork.engine.workload.VerifyPattern;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The crash-consistency check of acceptance 2, in the manner of xfstests' log-writes tests
 * (replay to each FUA in turn, check at each): the log is replayed onto an image entry by entry,
 * and at every FLUSH or FUA entry, the state a power cut right then would leave, every copy of
 * every block is read from the image. A copy must hold a generation the client wrote there (or
 * zeros if it never wrote it), no older than the newest one acknowledged durable by then; the
 * stack may check more ({@link ReplayStack#extraCheck}).
 */
final class CrashReplay {

    /**
     * @param points FLUSH and FUA entries replayed to and checked
     * @param copiesChecked block copies read at those points
     * @param losses copies older than acknowledged durable (or stack-specific losses)
     * @param garbage copies holding data no write put there
     */
    record Result(String stack, long entries, long points, long copiesChecked, long losses, long garbage,
                  List<String> samples) {

        @Override
        public String toString() {
            return String.format("%-16s %6d entries %5d points %9d copies checked  losses %d  garbage %d%s", stack,
                    entries, points, copiesChecked, losses, garbage, samples.isEmpty() ? "" : " " + samples);
        }
    }

    private CrashReplay() {}

    static Result check(ReplayStack stack, WriteLog log, Disk image, VerifyingClient client, List<DurabilityLedger.Ack> acks) {
        LogReplayer replayer = new LogReplayer(log, image, 0);
        int[] required = new int[client.blocks()];
        int next = 0;
        long points = 0;
        long copies = 0;
        long losses = 0;
        long garbage = 0;
        List<String> samples = new ArrayList<>();
        MemorySegment buf = MemorySegment.ofArray(new byte[VerifyingClient.BLOCK]);
        MemorySegment scratch = MemorySegment.ofArray(new byte[VerifyingClient.BLOCK]);
        for (long i = 0; i < log.entryCount(); i++) {
            WriteLog.Entry e = log.entry(i);
            if (!e.durabilityPoint()) {
                continue;
            }
            replayer.replayThrough(i);
            points++;
            while (next < acks.size() && acks.get(next).entriesAtAck() <= i + 1) {
                DurabilityLedger.Ack a = acks.get(next++);
                for (int k = 0; k < a.blocks().length; k++) {
                    required[a.blocks()[k]] = Math.max(required[a.blocks()[k]], a.generations()[k]);
                }
            }
            for (int b = 0; b < required.length; b++) {
                long offset = client.offset(b);
                for (long at : stack.copies(offset)) {
                    SyncIo.read(image, at, buf);
                    long gen = VerifyPattern.generationOf(buf, scratch, client.seed(), offset);
                    copies++;
                    if (gen < 0 || gen > client.issued(b)) {
                        garbage++;
                        note(samples, "entry " + i + ": block " + b + " copy at " + at + " holds data no write put there");
                    } else if (gen < required[b]) {
                        losses++;
                        note(samples, "entry " + i + ": block " + b + " copy at " + at + " holds generation " + gen
                                + ", generation " + required[b] + " was acknowledged durable");
                    }
                }
            }
            losses += stack.extraCheck(image, client, samples);
        }
        return new Result(stack.kind, log.entryCount(), points, copies, losses, garbage, List.copyOf(samples));
    }

    private static void note(List<String> samples, String s) {
        if (samples.size() < 8) {
            samples.add(s);
        }
    }
}
