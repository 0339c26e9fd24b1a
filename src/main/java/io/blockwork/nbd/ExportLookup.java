package io.blockwork.nbd;

import java.util.List;
import java.util.Optional;

/**
 * Where the server finds exports. It is asked at every handshake, so an export added or removed
 * is seen by the next client; clients already connected keep their device until
 * {@link NbdServer#disconnect(String)}. Implementations must be thread-safe.
 */
public interface ExportLookup {

    /** The export a client asked for by name (NBD_OPT_GO, NBD_OPT_INFO, NBD_OPT_EXPORT_NAME). */
    Optional<NbdExport> find(String name);

    /** Every export, for NBD_OPT_LIST. */
    List<NbdExport> list();
}
