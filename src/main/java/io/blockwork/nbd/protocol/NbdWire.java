package io.blockwork.nbd.protocol;

/**
 * Magic numbers, sizes and bit flags of the NBD wire format (the NetworkBlockDevice project's
 * {@code doc/proto.md}). Everything on the wire is big-endian. The enums beside this class name
 * the option, reply, command and error codes.
 */
public final class NbdWire {

    private NbdWire() {}

    /** "NBDMAGIC": the server's first eight bytes. */
    public static final long INIT_MAGIC = 0x4e42444d41474943L;
    /** "IHAVEOPT": follows INIT_MAGIC in newstyle negotiation, and starts every client option. */
    public static final long OPTION_MAGIC = 0x49484156454F5054L;
    /** Starts every fixed-newstyle option reply. */
    public static final long OPTION_REPLY_MAGIC = 0x3e889045565a9L;
    public static final int REQUEST_MAGIC = 0x25609513;
    public static final int SIMPLE_REPLY_MAGIC = 0x67446698;
    public static final int STRUCTURED_REPLY_MAGIC = 0x668e33ef;

    /* ---- Handshake flags (server, 16 bits) and client flags (32 bits) ---- */
    public static final int FLAG_FIXED_NEWSTYLE = 1;
    public static final int FLAG_NO_ZEROES = 1 << 1;
    public static final int CLIENT_FLAG_FIXED_NEWSTYLE = 1;
    public static final int CLIENT_FLAG_NO_ZEROES = 1 << 1;

    /* ---- Command flags (16 bits, per request) ---- */
    public static final int CMD_FLAG_FUA = 1;
    public static final int CMD_FLAG_NO_HOLE = 1 << 1;
    public static final int CMD_FLAG_DF = 1 << 2;
    public static final int CMD_FLAG_REQ_ONE = 1 << 3;
    public static final int CMD_FLAG_FAST_ZERO = 1 << 4;
    public static final int CMD_FLAG_PAYLOAD_LEN = 1 << 5;

    /* ---- Structured replies ---- */
    public static final int REPLY_FLAG_DONE = 1;
    public static final int REPLY_TYPE_NONE = 0;
    public static final int REPLY_TYPE_OFFSET_DATA = 1;
    public static final int REPLY_TYPE_OFFSET_HOLE = 2;
    public static final int REPLY_TYPE_BLOCK_STATUS = 5;
    public static final int REPLY_TYPE_ERROR = (1 << 15) + 1;
    public static final int REPLY_TYPE_ERROR_OFFSET = (1 << 15) + 2;

    /* ---- Meta contexts ---- */
    /** The one context Blockwork offers: which ranges hold data ({@code NBD_STATE_*} below). */
    public static final String BASE_ALLOCATION = "base:allocation";
    /** The id the server gives {@link #BASE_ALLOCATION} in NBD_REP_META_CONTEXT and BLOCK_STATUS replies. */
    public static final int BASE_ALLOCATION_ID = 1;
    /** base:allocation: the range is not allocated (a hole). */
    public static final int STATE_HOLE = 1;
    /** base:allocation: the range reads as zeros. */
    public static final int STATE_ZERO = 1 << 1;

    /* ---- NBD_INFO_* types in NBD_REP_INFO replies ---- */
    public static final int INFO_EXPORT = 0;
    public static final int INFO_NAME = 1;
    public static final int INFO_DESCRIPTION = 2;
    public static final int INFO_BLOCK_SIZE = 3;

    /* ---- Sizes ---- */
    public static final int REQUEST_HEADER_BYTES = 28;
    public static final int SIMPLE_REPLY_HEADER_BYTES = 16;
    public static final int STRUCTURED_REPLY_HEADER_BYTES = 20;
    public static final int OPTION_HEADER_BYTES = 16;
    public static final int OPTION_REPLY_HEADER_BYTES = 20;
    /** Longest string the protocol allows (export names, descriptions, messages). */
    public static final int MAX_STRING_BYTES = 4096;
    /** Largest READ or WRITE a client may assume is not a denial of service (2^25). */
    public static final int DEFAULT_MAX_BLOCK_BYTES = 1 << 25;
}
