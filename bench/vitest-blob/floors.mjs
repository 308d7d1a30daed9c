// Parse floors for the real Vitest blob (bench/vitest-blob/fresh.mjs): the least a reader of a format
// can do in JavaScript, so that a reader of BENCHMARKS.md sees what bounds parse. They are hand-written
// readers, not proven bounds: structura's own reader came out at 0.8-0.97x the time of `pw` below
// (BENCHMARKS.md, session 19), so `pw` is a floor within noise, not under it.
//
// `idealV3(shapeTable)` is a hydrator of structura text v3 written by hand for the shapes of one text:
// one constructor per shape compiled before timing (in one `new Function`, so that every constructor,
// `slot`, `node` and `str` share the object and long-string tables as context variables), and none of
// the reader's work that the format does not need: no input checks (arity, shape numbers, canonical
// references, limits), no depth or error-position bookkeeping, no compile counters, no deferred entries
// (the blob has none: `--check` asserts `top.length === 3`). What it keeps, the format needs of any reader:
// the dispatch of each slot on its JSON type (a string may be special or long: `~`, >= 64 code units),
// one object table in reading order (references `"~<n>"`, cycles included: an object exists before its
// members), one long-string table (`"~s<n>"`), and each record built from its shape.
//
// `idealDevalue(text)` is the same for devalue's format (a flat JSON array of values referring to each
// other by index; objects `{ key: index }`, arrays `[index, ...]`, negative indices for special numbers,
// `["Type", ...]` for other types): one table of hydrated values by index, no input checks.
//
// Both are checked against the libraries' own parse (`node bench/vitest-blob/floors.mjs --check`), so the
// floors return the same value graph, not a shortcut.

const isArray = Array.isArray;

/**
 * For a v3 text with this shape table (compiled once, not timed): `hydrate(top)` for JSON.parse's tree
 * of the whole text, `pw(text)` for the text read piecewise.
 */
export function idealV3(shapeTable) {
  let fillers = "";
  const keyLists = [];
  const literals = [];
  for (let s = 0; s < shapeTable.length; s++) {
    let literal = "";
    let stores = "";
    let j = 0;
    const entry = shapeTable[s];
    for (let i = 0; i < entry.length; i++) {
      const absent = isArray(entry[i]);
      const key = JSON.stringify(absent ? entry[i][0] : entry[i]);
      literal += `${i === 0 ? "" : ","}${key}:undefined`;
      if (absent) continue;
      j++;
      stores += `v=n[${j}];o[${key}]=typeof v==="string"?(v.length<64&&v.charCodeAt(0)!==126?v:str(v)):typeof v==="object"&&v!==null?node(v):v;`;
    }
    fillers += `function(n){var o={${literal}},v;objs.push(o);${stores}return o;},\n`;
    keyLists.push(entry.filter((key) => !isArray(key)));
    literals.push(new Function(`return {${literal}};`));
  }
  const source = `
    var objs, longs;
    var F = [${fillers}];
    function slot(v) {
      return typeof v === "string" ? (v.length < 64 && v.charCodeAt(0) !== 126 ? v : str(v))
        : typeof v === "object" && v !== null ? node(v) : v;
    }
    function node(x) {
      if (!Array.isArray(x)) {
        objs.push(x);
        for (var k in x) {
          var v = x[k];
          if (typeof v === "string") { if (v.length >= 64 || v.charCodeAt(0) === 126) x[k] = str(v); }
          else if (typeof v === "object" && v !== null) x[k] = node(v);
        }
        return x;
      }
      if (x.length === 0) { objs.push(x); return x; }
      var h = x[0];
      if (typeof h === "number") return F[h](x);
      if (h !== "A") throw new Error("ideal v3: tag " + h + " not in this blob");
      var a = [];
      objs.push(a);
      for (var i = 1; i < x.length; i++) a.push(slot(x[i]));
      return a;
    }
    function str(v) {
      if (v.charCodeAt(0) !== 126) { longs.push(v); return v; }
      var c = v.charCodeAt(1);
      if (c >= 48 && c <= 57) {
        var n = 0;
        for (var i = 1; i < v.length; i++) n = n * 10 + v.charCodeAt(i) - 48;
        return objs[n];
      }
      if (c === 115) return longs[+v.slice(2)];
      if (c === 126) { var s = v.slice(1); if (s.length >= 64) longs.push(s); return s; }
      switch (v) {
        case "~u": return undefined;
        case "~n": return NaN;
        case "~i": return Infinity;
        case "~-i": return -Infinity;
        case "~-0": return -0;
      }
      throw new Error("ideal v3: special " + v + " not in this blob");
    }
    function hydrate(top) {
      objs = [];
      longs = [];
      var root = slot(top[2]);
      objs = longs = undefined;
      return root;
    }

    // Piecewise (as structura's spine.ts): one scan finds where the containers of depth <= 6 start and
    // end; arrays of slots larger than RUN are walked member by member, their other members parsed in
    // runs of about RUN characters just before they are hydrated, so that JSON.parse's trees die young.
    var RUN = 32768, starts, ends, k;
    function closing(text, i) {
      var j = text.indexOf('"', i + 1);
      while (text.charCodeAt(j - 1) === 92) {
        var b = j - 2;
        while (text.charCodeAt(b) === 92) b--;
        if (((j - 1 - b) & 1) === 0) break;
        j = text.indexOf('"', j + 1);
      }
      return j;
    }
    function index(text) {
      starts = []; ends = [];
      var open = [], depth = 0, n = text.length;
      for (var i = 0; i < n; i++) {
        var c = text.charCodeAt(i);
        if (c === 34) i = closing(text, i);
        else if (c === 91 || c === 123) { if (++depth <= 6) { open.push(starts.length); starts.push(i); ends.push(0); } }
        else if (c === 93 || c === 125) { if (depth-- <= 6) ends[open.pop()] = i + 1; }
      }
    }
    // The end of the member at i (a container's from the index, whose entries inside it are skipped).
    function memberEnd(text, i) {
      var c = text.charCodeAt(i);
      if (c === 91 || c === 123) {
        var e = ends[k];
        k++;
        while (k < starts.length && starts[k] < e) k++;
        return e;
      }
      if (c === 34) return closing(text, i) + 1;
      var j = i;
      for (;;) { c = text.charCodeAt(j); if (c === 44 || c === 93 || c === 125) return j; j++; }
    }
    // The array of slots at starts[k] (depth d), walked member by member.
    function spine(text, d) {
      var open = starts[k], end = ends[k];
      k++;
      var i = open + 1, o, keys = null, a = null, m = 0;
      if (text.charCodeAt(i) === 34) { a = []; objs.push(a); i += 4; }
      else {
        var j = text.indexOf(",", i);
        var s = +text.slice(i, j);
        keys = K[s];
        o = C[s]();
        objs.push(o);
        i = j + 1;
      }
      var runStart = -1, runCount = 0;
      for (;;) {
        var big = text.charCodeAt(i) === 91 && d < 5 && starts[k] === i && ends[k] - i > RUN &&
          (text.charCodeAt(i + 1) === 34 ? text.charCodeAt(i + 2) === 65 && text.charCodeAt(i + 3) === 34 : true);
        if (big || (runCount > 0 && i - runStart > RUN)) {
          if (runCount > 0) m = flush(text, runStart, i - 1, runCount, o, keys, a, m);
          runCount = 0;
        }
        if (big) {
          var v = spine(text, d + 1);
          if (a !== null) a.push(v); else o[keys[m]] = v;
          m++;
          i = lastEnd;
        } else {
          if (runCount === 0) runStart = i;
          runCount++;
          i = memberEnd(text, i);
        }
        if (text.charCodeAt(i) === 93) break;
        i++;
      }
      if (runCount > 0) m = flush(text, runStart, i, runCount, o, keys, a, m);
      lastEnd = end;
      return a !== null ? a : o;
    }
    var lastEnd = 0;
    function flush(text, from, to, count, o, keys, a, m) {
      var values = JSON.parse("[" + text.slice(from, to) + "]");
      for (var i = 0; i < count; i++) {
        var v = slot(values[i]);
        if (a !== null) a.push(v); else o[keys[m]] = v;
        m++;
      }
      return m;
    }
    function pw(text) {
      objs = []; longs = [];
      index(text);
      k = 1;
      var shapesEnd = memberEnd(text, starts[1]);
      var root = spine(text, 2);
      objs = longs = starts = ends = undefined;
      return root;
    }
    return { hydrate: hydrate, pw: pw };`;
  return new Function("K", "C", source)(keyLists, literals);
}

/**
 * The shape table of a v3 text, parsed alone (its prefix up to the table's closing bracket): preparing
 * a floor must not parse the whole text, which would leave a grown, touched heap to the timed call.
 */
export function shapeTableOf(text) {
  const open = text.indexOf("[", 1);
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i++;
      while (text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
    } else if (c === 0x5b) depth++;
    else if (c === 0x5d && --depth === 0) return JSON.parse(text.slice(open, i + 1));
  }
  throw new Error("no shape table");
}

/** devalue's `parse` reduced to what its format needs: JSON.parse, then one table of hydrated values. */
export function idealDevalue(text) {
  const values = JSON.parse(text);
  const hydrated = new Array(values.length);
  function hydrate(index) {
    if (index < 0) {
      if (index === -1) return undefined;
      if (index === -3) return Number.NaN;
      if (index === -4) return Number.POSITIVE_INFINITY;
      if (index === -5) return Number.NEGATIVE_INFINITY;
      if (index === -6) return -0;
      throw new Error(`ideal devalue: index ${index} not in this blob`);
    }
    const value = values[index];
    if (typeof value !== "object" || value === null) return value;
    const done = hydrated[index];
    if (done !== undefined) return done;
    if (isArray(value)) {
      if (value.length !== 0 && typeof value[0] === "string") {
        throw new Error(`ideal devalue: type ${value[0]} not in this blob`);
      }
      const array = [];
      hydrated[index] = array;
      for (let i = 0; i < value.length; i++) {
        if (value[i] === -2) throw new Error("ideal devalue: holes not in this blob");
        array.push(hydrate(value[i]));
      }
      return array;
    }
    const object = {};
    hydrated[index] = object;
    for (const key in value) object[key] = hydrate(value[key]);
    return object;
  }
  return typeof values === "number" ? hydrate(values) : hydrate(0);
}

if (process.argv[2] === "--check") {
  const { readFileSync } = await import("node:fs");
  const { isDeepStrictEqual } = await import("node:util");
  // Whether `a` and `b` share objects alike: one object of `a` per object of `b`, in parallel walks.
  const sameSharing = (a, b) => {
    const ab = new Map();
    const ba = new Map();
    const stack = [a, b];
    while (stack.length > 0) {
      const y = stack.pop();
      const x = stack.pop();
      if (typeof x !== "object" || x === null) continue;
      if (ab.has(x) || ba.has(y)) {
        if (ab.get(x) !== y || ba.get(y) !== x) return false;
        continue;
      }
      ab.set(x, y);
      ba.set(y, x);
      for (const k of Object.keys(x)) stack.push(x[k], y[k]);
    }
    return true;
  };
  const { blobPath } = await import("./generate.mjs");
  const { vitestBlobFunctions } = await import("./read.mjs");
  const value = (await vitestBlobFunctions()).parse(readFileSync(blobPath, "utf8"));
  const text = await import("../../dist/text.js");
  const devalue = await import("devalue");
  const ours = text.stringify(value);
  const top = JSON.parse(ours);
  if (top.length !== 3) throw new Error("the blob has deferred entries: the v3 floor does not read them");
  if (!isDeepStrictEqual(shapeTableOf(ours), top[1])) throw new Error("shapeTableOf is wrong");
  const ideal = idealV3(shapeTableOf(ours));
  const v3 = ideal.hydrate(JSON.parse(ours));
  const v3pw = ideal.pw(ours);
  const dv = idealDevalue(devalue.stringify(value));
  const expected = text.parse(ours);
  for (const [name, got] of [
    ["ideal v3", v3],
    ["ideal v3 piecewise", v3pw],
    ["ideal devalue", dv],
  ]) {
    if (!isDeepStrictEqual(got, expected)) throw new Error(`${name} differs from structura's parse`);
    if (!sameSharing(got, expected)) throw new Error(`${name} does not share objects as structura's parse`);
    console.log(`${name}: same value graph as structura's parse`);
  }
}
