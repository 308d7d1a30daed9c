// Message sizes of the channel stress test, a pure function of the message index.

export function sizeOf(i) {
  // xorshift on the index: deterministic, cheap, spread
  let x = (i ^ 0x9e3779b9) | 0;
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  const r = (x >>> 0) % 100000;
  if (r < 80000) return r % 64;
  if (r < 95000) return 64 + (r % 4032);
  if (r < 99900) return 4096 + ((r * 7) % 61440);
  return 300000 + ((r * 131) % 700000);
}
