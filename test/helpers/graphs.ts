/**
 * Arbitrary object graphs for property tests: `n` containers of mixed kinds, then random edges between
 * them and to leaves, so every kind of sharing and cycle occurs (through Map keys and values, Set
 * members, error causes, array slots and object properties).
 */

import fc from "fast-check";

const KINDS = ["object", "array", "map", "set", "error", "sparse", "null"] as const;
type Kind = (typeof KINDS)[number];

/** `kinds`: the container kinds to use (null-prototype objects are left out where a test compares with clone). */
export function graphs(
  leaf: fc.Arbitrary<unknown>,
  maxNodes = 12,
  maxEdges = 40,
  kinds: readonly Kind[] = KINDS,
): fc.Arbitrary<unknown> {
  return fc
    .record({
      kinds: fc.array(fc.constantFrom(...kinds), { minLength: 1, maxLength: maxNodes }),
      edges: fc.array(
        fc.tuple(
          fc.nat(),
          fc.oneof(
            fc.nat().map((n) => ({ node: n })),
            leaf.map((v) => ({ leaf: v })),
          ),
        ),
        { maxLength: maxEdges },
      ),
    })
    .map(({ kinds, edges }) => {
      const nodes: object[] = kinds.map((kind) => {
        switch (kind) {
          case "array":
            return [];
          case "sparse":
            return new Array(6);
          case "map":
            return new Map();
          case "set":
            return new Set();
          case "error":
            return new TypeError("e");
          case "null":
            return Object.create(null);
          default:
            return {};
        }
      });
      edges.forEach(([from, to], i) => {
        const holder = nodes[from % nodes.length]!;
        const target = "node" in to ? nodes[to.node % nodes.length] : to.leaf;
        if (holder instanceof Map) holder.set(i % 3 === 0 ? target : `k${i}`, target);
        else if (holder instanceof Set) holder.add(target);
        else if (holder instanceof Error)
          Object.defineProperty(holder, "cause", { value: target, writable: true, configurable: true });
        else if (Array.isArray(holder)) holder[i % 8] = target;
        else (holder as Record<string, unknown>)[`p${i % 5}`] = target;
      });
      return nodes[0];
    });
}
