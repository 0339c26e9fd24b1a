package io.blockwork.nbd;

import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdWire;
import java.nio.ByteBuffer;

/**
 * One transmission request's header, as the client sent it.
 *
 * @param command the request type, or null for one this server does not know ({@code type} says which)
 * @param length unsigned 32 bits, so up to 4 GiB - 1: a long, and an int only once {@link RequestCheck}
 *               has held a READ or WRITE to the maximum payload
 */
record Request(NbdCommand command, int type, int flags, long handle, long offset, long length) {

    /** Reads a header off {@code in}, which holds at least {@link NbdWire#REQUEST_HEADER_BYTES}. */
    static Request read(ByteBuffer in) throws ProtocolViolation {
        int magic = in.getInt();
        if (magic != NbdWire.REQUEST_MAGIC) {
            throw new ProtocolViolation("bad request magic 0x" + Integer.toHexString(magic));
        }
        int flags = Short.toUnsignedInt(in.getShort());
        int type = Short.toUnsignedInt(in.getShort());
        long handle = in.getLong();
        long offset = in.getLong();
        long length = Integer.toUnsignedLong(in.getInt());
        return new Request(NbdCommand.of(type), type, flags, handle, offset, length);
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** READ or WRITE: the length is a data payload (the client's for WRITE, the reply's for READ). */
    boolean carriesData() {
        return command == NbdCommand.READ || command == NbdCommand.WRITE;
    }
}
