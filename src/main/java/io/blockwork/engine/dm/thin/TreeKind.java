package io.blockwork.engine.dm.thin;

/**
 * The B-trees of the pool metadata, as recorded in every node's header so that a reader can
 * check it is where it expects to be. Each kind says what its leaf values are, because the
 * copy-on-write rules depend on it: a value that names a metadata block or a data block is a
 * reference, counted when a shared leaf is copied and dropped when an entry goes.
 */
enum TreeKind {
    /** dev id → root block of that device's mapping tree (a metadata reference). */
    DEVICES(1, Values.METADATA),
    /** dev id → {@link DeviceDetails} packed in one word. */
    DETAILS(2, Values.PLAIN),
    /** virtual block → {@link BlockTime} packed in one word (a data reference). */
    MAPPING(3, Values.DATA),
    /** data block → reference count (entries exist only for counts above zero). */
    REFCOUNT(4, Values.PLAIN),
    /** A held metadata snapshot: entry 0 is a devices-tree root, entry 1 a details-tree root. */
    HELD(5, Values.METADATA);

    /** What a leaf value refers to. Internal nodes' values are always child blocks. */
    enum Values {
        PLAIN,
        METADATA,
        DATA
    }

    final int code;
    final Values values;

    TreeKind(int code, Values values) {
        this.code = code;
        this.values = values;
    }

    static TreeKind fromCode(int code) {
        for (TreeKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        return null;
    }
}
