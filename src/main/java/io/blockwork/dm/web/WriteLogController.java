package io.blockwork.dm.web;

import io.blockwork.engine.dm.targets.logwrites.LogFormat.Flag;
import io.blockwork.engine.dm.targets.logwrites.WriteLog;
import io.blockwork.dm.app.WriteLogService;
import io.blockwork.shared.problem.ProblemException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/dm/write-logs/{device}")
@Tag(name = "Write logs", description = "Logs kept by log-writes targets (the kernel's dm-log-writes format) on any "
        + "block device: list their entries and replay them onto another device, as it was at any entry, like "
        + "replay-log. A device that holds no log answers 409 no-write-log. Guide: docs/guide/log-writes.md.")
class WriteLogController {

    private final WriteLogService logs;

    WriteLogController(WriteLogService logs) {
        this.logs = logs;
    }

    @GetMapping
    @Operation(summary = "Summarise a write log", description = "Its sector size, entries counted by kind, and its marks.")
    WriteLogSummary getWriteLog(@PathVariable String device) {
        return WriteLogSummary.of(logs.summary(device));
    }

    @GetMapping("/entries")
    @Operation(summary = "List write log entries", description = "Entries in log order from `from`; with `flags`, only "
            + "those with any of them: `flags=fua&limit=1` finds the next FUA (replay-log --find --next-fua).")
    List<WriteLogEntry> listWriteLogEntries(
            @PathVariable String device,
            @Parameter(description = "First entry to look at") @RequestParam(defaultValue = "0") long from,
            @Parameter(description = "Most entries to return, 1.." + WriteLogService.MAX_PAGE)
            @RequestParam(defaultValue = "100") int limit,
            @Parameter(description = "Only entries with any of these flags: flush, fua, discard, mark, metadata")
            @RequestParam(required = false) List<String> flags) {
        return logs.entries(device, from, limit, flags(flags)).stream().map(WriteLogEntry::of).toList();
    }

    @PostMapping(path = "/replay", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Replay a write log onto a device", description = "Writes the entries from `startEntry` "
            + "(default 0) through the one chosen by `limit` (a count, replay-log --limit), `throughEntry` (an index) "
            + "or `endMark` (replay-log --end-mark), else through the last, onto `target`, then flushes it. Replayed "
            + "from entry 0 onto a device that held what the logged device held when the log started, the target is "
            + "then as the logged device was, durably, at that entry. The target must be a device nothing else uses "
            + "(409 device-busy); entries are checked before anything is written (409 no-write-log for a damaged "
            + "one, 400 out-of-range for one past the target's end).")
    ReplayResult replayWriteLog(@PathVariable String device, @Valid @RequestBody ReplayBody body) {
        return ReplayResult.of(logs.replay(device, new WriteLogService.ReplayRequest(body.target(), body.startEntry(),
                body.limit(), body.throughEntry(), body.endMark())));
    }

    private static Set<Flag> flags(List<String> names) {
        Set<Flag> out = EnumSet.noneOf(Flag.class);
        if (names == null) {
            return out;
        }
        for (String n : names) {
            for (String one : n.split(",")) {
                try {
                    out.add(Flag.valueOf(one.strip().toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw ProblemException.invalid("flags", "unknown flag '" + one.strip()
                            + "' (flush, fua, discard, mark, metadata)");
                }
            }
        }
        return out;
    }

    @Schema(description = "What a write log holds")
    record WriteLogSummary(
            @Schema(description = "The device the log is on") String device,
            @Schema(description = "Bytes per log sector: the logged device's logical block size", example = "512")
            int sectorSize,
            @Schema(description = "Entries the log's super counts") long entries,
            @Schema(description = "Entries with data") long writes,
            long flushes,
            @Schema(description = "Entries written with FUA (also counted in writes)") long fuas,
            long discards,
            List<WriteLogMark> marks) {

        static WriteLogSummary of(WriteLogService.Summary s) {
            return new WriteLogSummary(s.device(), s.sectorSize(), s.entries(), s.writes(), s.flushes(), s.fuas(),
                    s.discards(), s.marks().stream().map(m -> new WriteLogMark(m.entry(), m.name())).toList());
        }
    }

    record WriteLogMark(long entry, String name) {
    }

    @Schema(description = "One log entry")
    record WriteLogEntry(
            long index,
            @Schema(description = "write, flush, discard or mark", allowableValues = {"write", "flush", "discard", "mark"})
            String kind,
            @Schema(description = "First byte of the logged device the entry covers") long offset,
            @Schema(description = "Bytes it covers") long length,
            @Schema(description = "Its flags, lower case: flush, fua, discard, mark, metadata") List<String> flags,
            @Schema(description = "A mark's name; absent otherwise") String mark) {

        static WriteLogEntry of(WriteLog.Entry e) {
            String kind = e.is(Flag.MARK) ? "mark" : e.is(Flag.DISCARD) ? "discard" : e.hasData() ? "write" : "flush";
            List<String> flags = new ArrayList<>();
            e.flags().forEach(f -> flags.add(f.name().toLowerCase(Locale.ROOT)));
            return new WriteLogEntry(e.index(), kind, e.offset(), e.length(), flags, e.mark());
        }
    }

    @Schema(description = "A replay: onto which device, from which entry, through which")
    record ReplayBody(
            @Schema(description = "The device to write the entries to", example = "replica") @NotNull String target,
            @Schema(description = "First entry to replay; default 0") @PositiveOrZero Long startEntry,
            @Schema(description = "Replay this many entries (replay-log --limit)") @PositiveOrZero Long limit,
            @Schema(description = "Replay through this entry, inclusive") @PositiveOrZero Long throughEntry,
            @Schema(description = "Replay through the first mark of this name (replay-log --end-mark)") String endMark) {
    }

    @Schema(description = "What a replay did")
    record ReplayResult(String log, String target, long firstEntry,
                        @Schema(description = "The last entry replayed; -1 if none was") long lastEntry,
                        long entries, long writes, long discards, long bytesWritten) {

        static ReplayResult of(WriteLogService.ReplayOutcome o) {
            return new ReplayResult(o.log(), o.target(), o.firstEntry(), o.lastEntry(), o.entries(), o.writes(),
                    o.discards(), o.bytesWritten());
        }
    }
}
