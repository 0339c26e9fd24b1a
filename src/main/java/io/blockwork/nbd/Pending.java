package io.blockwork.nbd;

import io.blockwork.engine.block.Bio;
import io.blockwork.engine.block.BioCallback;
import io.blockwork.engine.block.IoStatus;
import io.blockwork.nbd.protocol.NbdCommand;
import io.blockwork.nbd.protocol.NbdError;
import java.nio.ByteBuffer;

/**
 * One request from the moment its header was read until its reply is on the wire: the bio's
 * callback first, then the reply the writer sends. One object, so a request costs one allocation
 * beside its bio.
 */
final class Pending implements BioCallback {

    /** Queued after the last reply of a connection: the writer closes the socket when it sees it. */
    static final Pending END = new Pending(null, 0, null, 0, 0, null);

    final Connection connection;
    final long handle;
    final NbdCommand command;
    final long offset;
    /** Budget bytes this request holds until its reply has been written. */
    final int charge;
    /** READ: filled by the device, then written to the client. WRITE: the payload. Else null. */
    final BufferPool.Payload data;
    /** BLOCK_STATUS: the reply chunk's payload (context id and descriptors). Else null. */
    ByteBuffer status;
    NbdError error;
    String message;
    /** TRIM or WRITE_ZEROES with FUA: made durable by a device flush before the reply. */
    boolean flushAfter;
    /**
     * Its reply is ready (handed to a sender). Plain: only read by the reader after a device's
     * submit threw, when an inline completion on the same thread is what matters.
     */
    boolean answered;
    /** Its buffer and budget were given back; set by the one thread sending its reply. */
    boolean released;

    Pending(Connection connection, long handle, NbdCommand command, long offset, int charge, BufferPool.Payload data) {
        this.connection = connection;
        this.handle = handle;
        this.command = command;
        this.offset = offset;
        this.charge = charge;
        this.data = data;
    }

    Pending fail(NbdError e, String why) {
        error = e;
        message = why;
        return this;
    }

    @Override
    public void done(Bio bio) {
        IoStatus status = bio.status();
        if (status.ok() && flushAfter) {
            flushAfter = false;
            connection.device().submit(Bio.flush(this));
            return;
        }
        if (!status.ok()) {
            fail(NbdError.of(status), command + " failed on " + connection.device().name() + ": " + status);
        }
        connection.replyReady(this);
    }
}
