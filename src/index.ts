/**
 * structura: move structured JavaScript data fast and without loss.
 * Each capability is also importable on its own: `structura/clone`, `structura/binary`, ... Everything
 * those entry points export is exported here too (test/package.test.ts checks it).
 */
export {
  DEFAULT_MAX_DEPTH,
  type DeserializeOptions,
  deserialize,
  type SerializeOptions,
  serialize,
} from "./binary/index.ts";
export {
  type Channel,
  ChannelEnd,
  type ChannelEvent,
  type ChannelHandle,
  type ChannelOptions,
  type ChannelPort,
  createChannel,
  type EndOptions,
  type HostMessagePort,
  openChannel,
  type PostOptions,
  sharedMemoryAvailable,
  type WatchedWorker,
} from "./channel/index.ts";
export { type CloneOptions, clone } from "./clone/index.ts";
export {
  ArgumentError,
  DataCloneError,
  DecodeError,
  LimitError,
  StructuraError,
  type StructuraErrorCode,
  type StructuraErrorOptions,
} from "./core/errors.ts";
export { configure, type StructuraSettings } from "./core/host.ts";
export { type AnyCustomType, type CustomType, defineType, TypeRegistry } from "./core/registry.ts";
export {
  DEFAULT_LIMITS,
  type EncodedFormData,
  type EncodeOptions,
  encodeFormData,
  type FormDataInput,
  generateBoundary,
  MultipartBody,
  MultipartField,
  MultipartFile,
  type MultipartLimits,
  type MultipartPart,
  type MultipartSource,
  type ParseOptions as MultipartParseOptions,
  type PartHeaders,
  parseFormData,
  parseMultipart,
} from "./formdata/index.ts";
export {
  type ByteSink,
  connect,
  connectStdio,
  createDecoder,
  createEncoder,
  DEFAULT_MAX_FRAME_SIZE,
  DEFAULT_MAX_SHAPE_TABLE,
  type DecodeStreamOptions,
  decodeFrames,
  decodeStream,
  type EncodeBatchOptions,
  type EncodeStreamOptions,
  encodeFrames,
  encodeStream,
  type FrameDecoder,
  type FrameEncoder,
  type StreamOptions,
  type ValueConnection,
} from "./stream/index.ts";
export { type ParseOptions, parse, type StringifyOptions, stringify } from "./text/index.ts";
