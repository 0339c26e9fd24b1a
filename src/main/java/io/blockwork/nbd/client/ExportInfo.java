package io.blockwork.nbd.client;

import io.blockwork.nbd.protocol.TransmissionFlag;
import java.util.Set;

/**
 * What the server said about the export in the handshake.
 *
 * @param minimumBlock smallest block the server accepts (1 if it did not say)
 * @param preferredBlock the block size it prefers (4096 if it did not say)
 * @param maximumBlock the largest request it accepts (32 MiB if it did not say)
 * @param structuredReplies true if the server agreed to structured replies
 */
public record ExportInfo(long sizeBytes, Set<TransmissionFlag> flags, int minimumBlock, int preferredBlock,
                         int maximumBlock, boolean structuredReplies) {

    public ExportInfo {
        flags = Set.copyOf(flags);
    }

    public boolean has(TransmissionFlag flag) {
        return flags.contains(flag);
    }

    public boolean readOnly() {
        return has(TransmissionFlag.READ_ONLY);
    }
}
