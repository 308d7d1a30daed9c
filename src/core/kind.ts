/** The kinds of value the classifier (types.ts) tells apart (split from types.ts, so that platform.ts
 * can name them). */

/** What kind of value an object is, for the purposes of structured serialization. */
export enum Kind {
  /** Ordinary object: own enumerable string-keyed properties only. */
  Object = 0,
  Array = 1,
  Date = 2,
  RegExp = 3,
  Map = 4,
  Set = 5,
  ArrayBuffer = 6,
  SharedArrayBuffer = 7,
  TypedArray = 8,
  DataView = 9,
  Error = 10,
  BooleanObject = 11,
  NumberObject = 12,
  StringObject = 13,
  BigIntObject = 14,
  Blob = 15,
  File = 16,
  DOMException = 17,
  /** A platform object structura does not take apart (MessagePort, CryptoKey, ...): `clone` hands it to
   * the host's structuredClone; the binary and text formats refuse it. */
  Host = 18,
  /** Not serializable: WeakMap, WeakSet, WeakRef, Promise, Proxy, generators, platform objects that the
   * spec does not mark serializable (URL, Headers, ...). */
  Refused = 19,
}
