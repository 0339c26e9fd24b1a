package planted;

import java.util.List;

/** Planted: an import nothing uses. */
class UnusedImport {
}
