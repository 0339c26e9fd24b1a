package io.blockwork.shared.device;

import io.blockwork.engine.block.BioFlags;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.block.BlockIoException;
import io.blockwork.engine.block.SyncIo;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import org.springframework.stereotype.Service;

/**
 * Reads, writes, flushes and discards on any block device by name, for callers that block (REST).
 * Requests are checked here, with problems naming what is wrong, before they reach the engine.
 */
@Service
public class DeviceIoService {

    /** Most bytes one read or write request moves; larger transfers are refused with payload-too-large. */
    public static final int MAX_TRANSFER_BYTES = 16 << 20;

    private final DeviceRegistry registry;

    public DeviceIoService(DeviceRegistry registry) {
        this.registry = registry;
    }

    public byte[] read(String name, long offset, long length) {
        BlockDevice device = registry.readable(name);
        checkTransfer(length, "length");
        checkRange(device, offset, length);
        byte[] data = new byte[(int) length];
        run(() -> SyncIo.read(device, offset, MemorySegment.ofArray(data)));
        return data;
    }

    /**
     * Writes a request body at {@code offset}. When the body's length is declared, everything is
     * checked before a byte of it is read; an undeclared (chunked) body is read up to the limit.
     *
     * @param declaredLength the Content-Length, or -1 if unknown
     * @param raw write although an array or a mapped device holds the device, where it allows that
     *            ({@link DeviceRegistry#writable}); without it such a device is refused with device-busy
     */
    public void write(String name, long offset, long declaredLength, InputStream body, boolean fua, boolean raw) {
        BlockDevice device = registry.writable(name, raw);
        if (declaredLength >= 0) {
            checkTransfer(declaredLength, "body");
            checkRange(device, offset, declaredLength);
        }
        byte[] data = readBody(body);
        checkTransfer(data.length, "body");
        checkRange(device, offset, data.length);
        BioFlags flags = fua ? BioFlags.FUA : BioFlags.NONE;
        run(() -> SyncIo.write(device, offset, MemorySegment.ofArray(data), flags));
    }

    public void flush(String name) {
        BlockDevice device = registry.device(name);
        run(() -> SyncIo.flush(device));
    }

    public void discard(String name, long offset, long length, boolean raw) {
        BlockDevice device = registry.writable(name, raw);
        if (length <= 0) {
            throw ProblemException.invalid("length", "length must be positive");
        }
        checkRange(device, offset, length);
        run(() -> SyncIo.discard(device, offset, length));
    }

    private static void checkTransfer(long length, String field) {
        if (length <= 0) {
            throw ProblemException.invalid(field, length == 0 ? field + " must not be empty"
                    : field + " must be positive, not " + length);
        }
        if (length > MAX_TRANSFER_BYTES) {
            throw new ProblemException(Problem.PAYLOAD_TOO_LARGE, "one request moves at most "
                    + MAX_TRANSFER_BYTES + " bytes (16 MiB), not " + length)
                    .atField(field).with("limitBytes", MAX_TRANSFER_BYTES);
        }
    }

    /** Offset and length must be multiples of the logical block size and lie inside the device. */
    private static void checkRange(BlockDevice device, long offset, long length) {
        if (offset < 0) {
            throw ProblemException.invalid("offset", "offset must not be negative");
        }
        int lbs = device.limits().logicalBlockSize();
        if (offset % lbs != 0 || length % lbs != 0) {
            String field = offset % lbs != 0 ? "offset" : "length";
            throw new ProblemException(Problem.MISALIGNED, field + " " + (offset % lbs != 0 ? offset : length)
                    + " is not a multiple of the logical block size " + lbs + " of " + device.name())
                    .atField(field).with("logicalBlockSize", lbs);
        }
        long size = device.sizeBytes();
        if (offset > size || length > size - offset) {
            // offset + length may overflow a long: name the range by its start and length
            throw new ProblemException(Problem.OUT_OF_RANGE, length + " bytes at offset " + offset
                    + " are not inside " + device.name() + ", which has " + size + " bytes")
                    .atField("offset").with("sizeBytes", size);
        }
    }

    private static byte[] readBody(InputStream body) {
        try {
            byte[] data = body.readNBytes(MAX_TRANSFER_BYTES + 1);
            if (data.length > MAX_TRANSFER_BYTES) {
                checkTransfer(data.length, "body");
            }
            return data;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the request body", e);
        }
    }

    /** Engine errors become problems: a failing device is reported as io-error, like EIO. */
    private static void run(Runnable io) {
        try {
            io.run();
        } catch (BlockIoException e) {
            Problem problem = switch (e.status()) {
                case INVALID -> Problem.OUT_OF_RANGE;
                case NOT_SUPPORTED -> Problem.NOT_SUPPORTED;
                case NO_SPACE -> Problem.INSUFFICIENT_SPACE;
                case READ_ONLY -> Problem.CONFLICT;
                default -> Problem.IO_ERROR;
            };
            throw new ProblemException(problem, e.getMessage()).with("ioStatus", e.status().name()).causedBy(e);
        }
    }
}
