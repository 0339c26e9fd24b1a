package io.blockwork.nbd;

import io.blockwork.engine.block.BlockDevice;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdError;
import io.blockwork.nbd.protocol.NbdWire;

/**
 * Everything a request is checked for before it reaches the device, each rule decided here once
 * with one outcome (docs/engine/nbd.md's error table, proto.md's "Block size constraints"):
 *
 * <ol>
 *   <li>A WRITE payload over {@link #dropAboveBytes} (the maximum payload, but never under 2^25,
 *       which the spec says SHOULD NOT count as denial of service) is a hard disconnect, whatever
 *       else is wrong with the request: its payload is not worth reading to refuse it.</li>
 *   <li>Unknown or unsupported command; BLOCK_STATUS without a negotiated meta context: EINVAL.</li>
 *   <li>A change to a read-only export: EPERM.</li>
 *   <li>A flag the command does not take: EINVAL.</li>
 *   <li>FLUSH with an offset or a length; any other command of length 0: EINVAL.</li>
 *   <li>READ or WRITE longer than the advertised maximum payload: EINVAL. The commands whose length
 *       carries no payload (TRIM, WRITE_ZEROES, CACHE, BLOCK_STATUS) are not held to it.</li>
 *   <li>A range past the export's end: ENOSPC for WRITE and WRITE_ZEROES, EINVAL otherwise.</li>
 *   <li>Offset or length not a multiple of the minimum block size: EINVAL.</li>
 * </ol>
 *
 * The first rule that applies decides. A refused WRITE's payload follows its header all the same;
 * the connection reads and drops it.
 */
final class RequestCheck {

    /** What becomes of a request. */
    sealed interface Verdict {
        /** It goes ahead: to the device, or (BLOCK_STATUS, CACHE) answered at once. */
        Verdict SERVE = new Serve();

        record Serve() implements Verdict {}

        /** An error reply; the connection goes on. */
        record Refuse(NbdError error, String message) implements Verdict {}

        /** A hard disconnect. */
        record Drop(String reason) implements Verdict {}
    }

    private final NbdExport export;
    private final BlockDevice device;
    /** base:allocation was negotiated: BLOCK_STATUS is answered. */
    private final boolean allocationContext;
    /** The maximum payload advertised (NBD_INFO_BLOCK_SIZE's maximum). */
    private final int maxPayloadBytes;
    private final long dropAboveBytes;

    RequestCheck(NbdExport export, boolean allocationContext, NbdLimits limits) {
        this.export = export;
        this.device = export.device();
        this.allocationContext = allocationContext;
        this.maxPayloadBytes = limits.maxBlockBytes();
        this.dropAboveBytes = Math.max(limits.maxBlockBytes(), NbdWire.DEFAULT_MAX_BLOCK_BYTES);
    }

    Verdict check(Request r) {
        NbdCommand command = r.command();
        long length = r.length();
        if (command == NbdCommand.WRITE && length > dropAboveBytes) {
            return new Verdict.Drop("WRITE of " + length + " bytes");
        }
        if (command == null || command == NbdCommand.RESIZE) {
            return refuse(NbdError.EINVAL, "command " + r.type() + " is not supported");
        }
        if (command == NbdCommand.BLOCK_STATUS && !allocationContext) {
            return refuse(NbdError.EINVAL, "BLOCK_STATUS needs a meta context (NBD_OPT_SET_META_CONTEXT "
                    + NbdWire.BASE_ALLOCATION + ")");
        }
        if (export.readOnly() && command.modifies()) {
            return refuse(NbdError.EPERM, "export " + export.name() + " is read-only");
        }
        if ((r.flags() & ~allowedFlags(command)) != 0) {
            return refuse(NbdError.EINVAL, "flags 0x" + Integer.toHexString(r.flags()) + " not valid for " + command);
        }
        if (command == NbdCommand.FLUSH) {
            return r.offset() == 0 && length == 0 ? Verdict.SERVE
                    : refuse(NbdError.EINVAL, "FLUSH must have offset and length 0");
        }
        if (length == 0) {
            return refuse(NbdError.EINVAL, command + " of length 0");
        }
        if (r.carriesData() && length > maxPayloadBytes) {
            return refuse(NbdError.EINVAL, command + " of " + length + " bytes exceeds the maximum block size "
                    + maxPayloadBytes);
        }
        long offset = r.offset();
        long size = device.sizeBytes();
        if (offset < 0 || offset > size || length > size - offset) {
            boolean writes = command == NbdCommand.WRITE || command == NbdCommand.WRITE_ZEROES;
            return refuse(writes ? NbdError.ENOSPC : NbdError.EINVAL, command + " at "
                    + Long.toUnsignedString(offset) + "+" + length + " is beyond the export's " + size + " bytes");
        }
        long block = device.limits().logicalBlockSize();
        if (((offset | length) & (block - 1)) != 0) {
            return refuse(NbdError.EINVAL, command + " at " + offset + "+" + length
                    + " is not aligned to the minimum block size " + block);
        }
        return Verdict.SERVE;
    }

    /** FUA where the export is writable (it advertises SEND_FUA), NO_HOLE on WRITE_ZEROES, REQ_ONE on BLOCK_STATUS. */
    private int allowedFlags(NbdCommand command) {
        return switch (command) {
            case BLOCK_STATUS -> NbdWire.CMD_FLAG_REQ_ONE;
            case CACHE -> 0;
            default -> (export.readOnly() ? 0 : NbdWire.CMD_FLAG_FUA)
                    | (command == NbdCommand.WRITE_ZEROES ? NbdWire.CMD_FLAG_NO_HOLE : 0);
        };
    }

    private static Verdict refuse(NbdError error, String message) {
        return new Verdict.Refuse(error, message);
    }
}
