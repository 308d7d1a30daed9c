/**
 * The byte values of the binary format (version 2; decoders also read version 1). docs/binary-format.md is the normative description;
 * this table must agree with it. Never renumber: a change here is a format change (bump VERSION and
 * update test/vectors/binary).
 */

/** One magic byte (not ASCII, so text and JSON never start with it), then the version byte. */
export const MAGIC = 0xb5;
export const VERSION = 2;
/** The oldest version decoders still read (version 1 differs only in its error records: §8.1). */
export const OLDEST_VERSION = 1;
export const HEADER_SIZE = 2;
/**
 * Set in the header's second byte (version 2, and a stream message's mode) when the message holds no
 * REF: the decoder need not number its objects (docs/binary-format.md §2).
 */
export const NO_REFS = 0x80;

// Ranges that carry their payload in the tag byte itself.
/** 0x00-0x7f: the unsigned integer 0..127. */
export const FIXINT_MAX = 0x7f;
/** 0x80-0x9f: a string of 0..31 UTF-8 bytes. */
export const FIXSTR = 0x80;
/** 0xa0-0xbf: a record of shape 0..31. */
export const FIXREC = 0xa0;
/** 0xe0-0xef: an array of 0..15 elements (the elements follow). */
export const FIXARRAY = 0xe0;
/** 0xf0-0xff: the integer -16..-1. */
export const NEGFIX = 0xf0;

export const UNDEFINED = 0xc0;
export const NULL = 0xc1;
export const FALSE = 0xc2;
export const TRUE = 0xc3;
export const UINT8 = 0xc4;
export const UINT16 = 0xc5;
export const UINT32 = 0xc6;
export const INT8 = 0xc7;
export const INT16 = 0xc8;
export const INT32 = 0xc9;
export const FLOAT64 = 0xca;
export const STR8 = 0xcb;
export const STR16 = 0xcc;
export const STR32 = 0xcd;
export const BIGINT_POS = 0xce;
export const BIGINT_NEG = 0xcf;
export const ARRAY = 0xd0;
export const OBJECT = 0xd1;
export const SHAPE_DEF = 0xd2;
export const RECORD = 0xd3;
export const REF = 0xd4;
export const HOLE = 0xd5;
export const DATE = 0xd6;
export const EXT = 0xd7;
export const STR_UTF16 = 0xd8;
export const ARRAY_PROPS = 0xd9;
/** A Date whose time value is a whole number of seconds in 0..2^32-1: uint32 seconds. */
export const DATE_SECONDS = 0xda;
// 0xdb-0xdf are reserved: a decoder rejects them with ERR_UNKNOWN_TAG.

// Extension codes: the byte after EXT.
export const X_REGEXP = 0x01;
export const X_MAP = 0x02;
export const X_SET = 0x03;
export const X_ARRAY_BUFFER = 0x04;
export const X_RESIZABLE_BUFFER = 0x05;
export const X_SHARED_BUFFER = 0x06;
export const X_GROWABLE_SHARED_BUFFER = 0x07;
export const X_TYPED_ARRAY = 0x08;
export const X_DATA_VIEW = 0x09;
export const X_ERROR = 0x0a;
export const X_BOOLEAN_FALSE = 0x0b;
export const X_BOOLEAN_TRUE = 0x0c;
export const X_NUMBER = 0x0d;
export const X_STRING = 0x0e;
export const X_BIGINT = 0x0f;
export const X_SPARSE_ARRAY = 0x10;
export const X_DOM_EXCEPTION = 0x11;
export const X_CUSTOM = 0x12;

/** Error flags. */
export const ERROR_MESSAGE = 1;
export const ERROR_STACK = 2;
export const ERROR_CAUSE = 4;
/** Version 2 (errors whole): a name string value follows the stack. */
export const ERROR_NAME = 8;
/** Version 2: AggregateError's `errors` value follows the cause. */
export const ERROR_ERRORS = 16;
/** Version 2: SuppressedError's `error` and `suppressed` values follow. */
export const ERROR_SUPPRESSED = 32;
/** Version 2: own properties follow: `varint m`, m × (string value key, slot). */
export const ERROR_PROPS = 64;
/** The flags (and class ids) each version allows. */
export const ERROR_FLAGS_V1 = 7;
export const ERROR_FLAGS_V2 = 127;
export const ERROR_CLASSES_V1 = 7;

/** View flags. */
export const VIEW_TRACKING = 1;

/** Typed-array payloads start at a multiple of this, counted from the first header byte. */
export const ALIGNMENT = 8;

/** The default maximum nesting depth (see docs/binary-format.md, "Limits"). */
export const DEFAULT_MAX_DEPTH = 1500;
