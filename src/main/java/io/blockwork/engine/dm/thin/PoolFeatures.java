package io.blockwork.engine.dm.thin;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The thin-pool table's feature arguments, as dm-thin reads and prints them.
 *
 * @param zeroNewBlocks zero a newly provisioned block before a partial write (off: {@code skip_block_zeroing})
 * @param discardEnabled thin devices unmap discarded blocks (off: {@code ignore_discard})
 * @param discardPassdown a block whose last mapping goes is discarded on the data device too
 *        (off: {@code no_discard_passdown})
 * @param readOnly no metadata changes ({@code read_only})
 * @param errorIfNoSpace fail writes at once when the data device is full, instead of queueing them
 *        for the no-space timeout ({@code error_if_no_space})
 */
public record PoolFeatures(boolean zeroNewBlocks, boolean discardEnabled, boolean discardPassdown, boolean readOnly,
                           boolean errorIfNoSpace) {

    public static final PoolFeatures DEFAULT = new PoolFeatures(true, true, true, false, false);

    /** Features from their names (case-insensitive, as the kernel compares them). */
    public static PoolFeatures parse(List<String> names) throws ThinException {
        PoolFeatures f = DEFAULT;
        for (String n : names) {
            f = switch (n.toLowerCase(Locale.ROOT)) {
                case "skip_block_zeroing" -> new PoolFeatures(false, f.discardEnabled, f.discardPassdown, f.readOnly, f.errorIfNoSpace);
                case "ignore_discard" -> new PoolFeatures(f.zeroNewBlocks, false, f.discardPassdown, f.readOnly, f.errorIfNoSpace);
                case "no_discard_passdown" -> new PoolFeatures(f.zeroNewBlocks, f.discardEnabled, false, f.readOnly, f.errorIfNoSpace);
                case "read_only" -> new PoolFeatures(f.zeroNewBlocks, f.discardEnabled, f.discardPassdown, true, f.errorIfNoSpace);
                case "error_if_no_space" -> new PoolFeatures(f.zeroNewBlocks, f.discardEnabled, f.discardPassdown, f.readOnly, true);
                default -> throw new ThinException("Unrecognised pool feature requested: '" + n + "' (known: skip_block_zeroing,"
                        + " ignore_discard, no_discard_passdown, read_only, error_if_no_space)");
            };
        }
        return f;
    }

    /** The table form: a count and the features that differ from the defaults. */
    public List<String> args() {
        List<String> out = new ArrayList<>();
        if (!zeroNewBlocks) {
            out.add("skip_block_zeroing");
        }
        if (!discardEnabled) {
            out.add("ignore_discard");
        }
        if (!discardPassdown) {
            out.add("no_discard_passdown");
        }
        if (readOnly) {
            out.add("read_only");
        }
        if (errorIfNoSpace) {
            out.add("error_if_no_space");
        }
        out.addFirst(String.valueOf(out.size()));
        return out;
    }

    PoolFeatures withErrorIfNoSpace(boolean on) {
        return new PoolFeatures(zeroNewBlocks, discardEnabled, discardPassdown, readOnly, on);
    }

    /** The discard column of the status line. */
    String discardLabel() {
        return !discardEnabled ? "ignore_discard" : discardPassdown ? "discard_passdown" : "no_discard_passdown";
    }

    /** The no-space column of the status line. */
    String noSpaceLabel() {
        return errorIfNoSpace ? "error_if_no_space" : "queue_if_no_space";
    }
}
