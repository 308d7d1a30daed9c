import { prng } from "../lib/random.mjs";

// Reference data shared by every capability benchmark (clone, binary, text, formdata, channel).
//
// The first group mirrors Bun's structuredClone benchmark snippet (see BENCHMARKS.md for the source), so
// numbers can be read side by side with the figures quoted there. The rest adds the shapes that the
// small cases do not exercise: bigger arrays, keyed collections, binary data, a cyclic graph and the
// 14 KB / 3 MB strings from Bun's string fast-path benchmark.
//
// Every value is built deterministically (no Math.random), once, at import time. Benchmarks must treat
// them as read-only: the same object is handed to every implementation.
//
// Each case: { name, value, json, cyclic }
//   json:   true if JSON.parse(JSON.stringify(value)) gives back an equal value (no undefined, Map,
//           typed arrays, cycles, ...), so JSON-based codecs can take part.
//   cyclic: true if the value graph contains a cycle (cloners without cycle support cannot take it).

// The nested array from Bun's snippet, verbatim in shape and values.
const testArray = [
  {
    description: "Random description.",
    testNumber: 123456789,
    testBoolean: true,
    testObject: {
      testString: "test string",
      testNumber: 12345,
    },
    testArray: [
      {
        myName: "test name",
        myNumber: 123245,
      },
    ],
  },
  {
    description: "Random description.",
    testNumber: 123456789,
    testBoolean: true,
    testObject: {
      testString: "test string",
      testNumber: 12345,
    },
    testArray: [
      {
        myName: "test name",
        myNumber: 123245,
      },
    ],
  },
];

const objects = (n) => Array.from({ length: n }, (_, i) => ({ id: i, name: `item-${i}`, active: true }));
const numbers = (n) => Array.from({ length: n }, (_, i) => i);
const strings = (n) => Array.from({ length: n }, (_, i) => `item-${i}`);

/**
 * An ASCII prose-like string of exactly `length` characters. Built through TextDecoder so the result
 * is one flat (sequential) string, not a rope of concatenations, as a string read from a file or the
 * network would be.
 */
function text(length, seed) {
  const rand = prng(seed);
  const bytes = new Uint8Array(length);
  let i = 0;
  while (i < length) {
    const word = 2 + Math.floor(rand() * 8);
    for (let k = 0; k < word && i < length; k++) bytes[i++] = 97 + Math.floor(rand() * 26);
    if (i < length) bytes[i++] = rand() < 0.08 ? 10 : 32;
  }
  return new TextDecoder().decode(bytes);
}

function bytes(length, seed) {
  const rand = prng(seed);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (rand() * 256) | 0;
  return out;
}

/**
 * A binary tree of `n` nodes where every node points to its parent and lists its children, so every
 * edge is a cycle. The case value is the root.
 */
function cyclicGraph(n) {
  const nodes = [];
  for (let i = 0; i < n; i++) {
    const node = { id: i, name: `node-${i}`, parent: null, children: [] };
    if (i > 0) {
      const parent = nodes[(i - 1) >> 1];
      node.parent = parent;
      parent.children.push(node);
    }
    nodes.push(node);
  }
  return nodes[0];
}

const KB = 1024;
const MB = 1024 * KB;

/** @type {{ name: string, value: unknown, json: boolean, cyclic: boolean }[]} */
export const cases = [
  // --- Bun's structuredClone snippet ---
  { name: "[10 objects]", value: objects(10), json: true, cyclic: false },
  { name: "[100 objects]", value: objects(100), json: true, cyclic: false },
  { name: "[10 numbers]", value: numbers(10), json: true, cyclic: false },
  { name: "[100 numbers]", value: numbers(100), json: true, cyclic: false },
  { name: "[1000 numbers]", value: numbers(1000), json: true, cyclic: false },
  { name: "[10 strings]", value: strings(10), json: true, cyclic: false },
  { name: "[100 strings]", value: strings(100), json: true, cyclic: false },
  // contains undefined, which JSON turns into null
  {
    name: "[10 mixed]",
    value: [1, "hello", true, null, undefined, 3.14, "world", false, 42, "test"],
    json: false,
    cyclic: false,
  },
  { name: "nested array", value: testArray, json: true, cyclic: false },
  { name: "123", value: 123, json: true, cyclic: false },
  { name: "{a: 123}", value: { a: 123 }, json: true, cyclic: false },

  // --- additions ---
  { name: "[1000 objects]", value: objects(1000), json: true, cyclic: false },
  {
    name: "Map(1000)",
    value: new Map(objects(1000).map((o) => [`key-${o.id}`, o])),
    json: false,
    cyclic: false,
  },
  { name: "Set(1000)", value: new Set(strings(1000)), json: false, cyclic: false },
  { name: "Uint8Array 1 MB", value: bytes(MB, 1), json: false, cyclic: false },
  { name: "cyclic graph (100)", value: cyclicGraph(100), json: false, cyclic: true },
  { name: "string 14 KB", value: text(14 * KB, 2), json: true, cyclic: false },
  { name: "string 3 MB", value: text(3 * MB, 3), json: true, cyclic: false },
];

/** Look a case up by its exact name (throws if it does not exist, so a typo fails loudly). */
export function getCase(name) {
  const found = cases.find((c) => c.name === name);
  if (!found) throw new Error(`no reference case named ${JSON.stringify(name)}`);
  return found;
}
