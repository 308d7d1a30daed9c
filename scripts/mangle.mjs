// Which property names the build may shorten (esbuild `mangleProps`), found by the TypeScript checker
// over src/ (cached by a digest of the inputs in node_modules/.cache), and the short name each gets.
//
// A consumer's minifier renames local variables but never properties: `this.nextDeferred`,
// `shape.compileAt` or `r.fail(...)` reach every browser bundle at full length. Renaming them is safe
// only where structura alone writes and reads the property, so a name is shortened only when ALL hold:
//
//  1. src/ declares it as a member of a class, interface or object literal;
//  2. every place src/ names it (declaration, `a.name`, `{ name }`, destructuring) resolves, through the
//     checker, to declarations in src/ only (never `any`, never the ES/DOM/Node typings);
//  3. no ES, DOM or Node typing declares a property of that name at all (so an object that flows to or
//     from the platform untyped cannot be hit);
//  4. the public API does not name it (every property reachable from the types each public entry
//     exports), nor does a string or template literal in src/: one that is the name (`"name" in x`,
//     `x["name"]`, keys given as strings) or holds it as code does (`.name`, `name:`: the generated
//     code of the text reader's fillers and clone's copiers);
//  5. no type literal or `as` target in src/ declares it: those describe objects someone else made
//     (`globalThis as { Deno?: DenoLike }`, `util.types as HostTypes`);
//  6. it is not on the EXTERNAL list below (platform objects that no typing in the program declares).
//
// The short names are chosen here, most frequent first, and handed to esbuild as its `mangleCache`, so
// the ESM and the CommonJS builds agree (a worker loaded as CommonJS talks to an ESM main thread), and
// never equal a property name src/ or the typings use. `node scripts/mangle.mjs` lists the mapping.

import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Loaded on the first checker pass only: a build whose mapping is cached never pays for it.
const require = createRequire(import.meta.url);
/** @type {typeof import("typescript")} */
let ts;

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const srcDir = `${path.join(root, "src")}${path.sep}`;

/** Property names of platform objects outside the program's typings (Deno, Bun, engines' extras). */
const EXTERNAL = new Set([
  // Deno / Bun / engine specifics read through local interfaces
  "Deno",
  "Bun",
  "build",
  "os",
  "utf8Slice",
  "latin1Slice",
  "asciiSlice",
  "receiveMessageOnPort",
  "getBuiltinModule",
  "waitAsync",
  "isWellFormed",
  "transfer",
  "resize",
]);

const isSrc = (file) => path.resolve(file).startsWith(srcDir);

function program() {
  const configPath = path.join(root, "tsconfig.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const files = parsed.fileNames.filter(isSrc);
  return ts.createProgram(files, { ...parsed.options, noEmit: true });
}

/** The public entries (package.json exports), as source files. */
export const PUBLIC_ENTRIES = [
  "src/index.ts",
  "src/clone/index.ts",
  "src/binary/index.ts",
  "src/text/index.ts",
  "src/formdata/index.ts",
  "src/channel/index.ts",
  "src/stream/index.ts",
  "src/compat/flatted.ts",
  "src/compat/devalue/index.ts",
  "src/compat/ungap/index.ts",
  "src/compat/ungap/json.ts",
];

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** `.name` or `name:` inside a string: code written as text (the generated fillers and copiers). */
const CODE_WORD = /(?<=\.)[A-Za-z_$][\w$]*|[A-Za-z_$][\w$]*(?=\s*:)/g;

/**
 * The property names a string may stand for: the whole string when it is one identifier (`"name" in x`,
 * `defineProperty(o, "name")`, option lists), and in longer strings the words code would use as a
 * property (`st.remember(s,o)`, `{key:`), not every word of a message.
 */
function wordsNamedIn(text) {
  const trimmed = text.trim();
  if (IDENTIFIER.test(trimmed)) return [trimmed];
  return text.match(CODE_WORD) ?? [];
}

/**
 * The names to shorten and their counts in src/ (a rough weight: how often each is written).
 * Returns { names: Map<name, count>, used: Set<every property name seen anywhere> }.
 */
export function safeNames() {
  ts ??= require("typescript");
  const prog = program();
  const checker = prog.getTypeChecker();
  const declared = new Map(); // name -> count of src sites
  const unsafe = new Set();
  const why = new Map(); // MANGLE_WHY: the first rule that refused each name
  const refuse = (name, rule) => {
    if (!unsafe.has(name)) why.set(name, rule);
    unsafe.add(name);
  };
  const used = new Set(); // every property name in src and in the typings (for choosing short names)

  // 3. every property name the typings declare (lib.*.d.ts, @types/node, ...)
  for (const sf of prog.getSourceFiles()) {
    if (isSrc(sf.fileName)) continue;
    const visit = (node) => {
      if (
        (ts.isPropertySignature(node) ||
          ts.isMethodSignature(node) ||
          ts.isPropertyDeclaration(node) ||
          ts.isMethodDeclaration(node) ||
          ts.isGetAccessorDeclaration(node) ||
          ts.isSetAccessorDeclaration(node)) &&
        node.name !== undefined &&
        (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))
      ) {
        refuse(node.name.text, "3 typings");
        used.add(node.name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  const declaredOutside = (symbol) => {
    if (symbol === undefined) return true;
    let s = symbol;
    if (s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
    const decls = s.declarations ?? [];
    if (decls.length === 0) return true; // synthetic (mapped types, `any` members)
    return decls.some((d) => !isSrc(d.getSourceFile().fileName));
  };

  /** A site naming property `name` of something: safe only if the checker resolves it into src/. */
  const site = (nameNode, symbol) => {
    const name = nameNode.text;
    used.add(name);
    declared.set(name, (declared.get(name) ?? 0) + 1);
    if (declaredOutside(symbol)) refuse(name, "2 resolves outside src");
  };

  const reserveMembers = (members) => {
    for (const m of members)
      if (m.name !== undefined && ts.isIdentifier(m.name)) refuse(m.name.text, "5 type literal / as");
  };
  const reservedInterfaces = new Set();
  const reserveTypeNode = (typeNode) => {
    const visit = (n) => {
      if (ts.isTypeLiteralNode(n)) reserveMembers(n.members);
      if (ts.isTypeReferenceNode(n)) {
        const sym = checker.getSymbolAtLocation(n.typeName);
        const target = sym && sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
        for (const d of target?.declarations ?? []) {
          if (!isSrc(d.getSourceFile().fileName) || reservedInterfaces.has(d)) continue;
          reservedInterfaces.add(d);
          if (ts.isInterfaceDeclaration(d)) {
            reserveMembers(d.members);
            for (const m of d.members) if (m.type) visit(m.type);
          } else if (ts.isTypeAliasDeclaration(d)) visit(d.type);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(typeNode);
  };

  for (const sf of prog.getSourceFiles()) {
    if (!isSrc(sf.fileName)) continue;
    const visit = (node) => {
      // 4. strings and template texts: any identifier-like word in them is reserved
      if (
        ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node) ||
        ts.isRegularExpressionLiteral(node)
      ) {
        for (const w of wordsNamedIn(node.text)) refuse(w, "4 string");
      }
      // 5. type literals anywhere, and the interfaces/aliases an `as` (or `<T>`) assertion names
      if (ts.isTypeLiteralNode(node)) reserveMembers(node.members);
      if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && node.type)
        reserveTypeNode(node.type);

      // enum members: esbuild inlines their values; the enum object keeps quoted names
      if (ts.isEnumMember(node) && ts.isIdentifier(node.name)) refuse(node.name.text, "enum");

      if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.name)) {
        site(node.name, checker.getSymbolAtLocation(node.name));
      } else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) {
        refuse(node.argumentExpression.text, "4 x['name']");
      } else if (
        (ts.isPropertyDeclaration(node) ||
          ts.isMethodDeclaration(node) ||
          ts.isGetAccessorDeclaration(node) ||
          ts.isSetAccessorDeclaration(node) ||
          ts.isPropertySignature(node) ||
          ts.isMethodSignature(node)) &&
        node.name !== undefined
      ) {
        if (ts.isIdentifier(node.name)) {
          // A class member that implements or overrides a typing's member (`toJSON`, `then`) is
          // caught by rule 3; its own symbol is in src/.
          used.add(node.name.text);
          declared.set(node.name.text, (declared.get(node.name.text) ?? 0) + 1);
        } else if (ts.isStringLiteral(node.name)) refuse(node.name.text, "4 quoted key");
        // computed names ([Symbol.iterator]) are not property names to rename
      } else if (
        ts.isParameter(node) &&
        ts.isIdentifier(node.name) &&
        ts.getEffectiveModifierFlags(node) & ts.ModifierFlags.ParameterPropertyModifier
      ) {
        used.add(node.name.text);
        declared.set(node.name.text, (declared.get(node.name.text) ?? 0) + 1);
      } else if (
        ts.isPropertyAssignment(node) ||
        ts.isShorthandPropertyAssignment(node) ||
        ts.isMethodDeclaration(node)
      ) {
        if (ts.isIdentifier(node.name)) {
          // An object literal's key: the contextual type says whose property it is.
          const literal = node.parent;
          const contextual = ts.isObjectLiteralExpression(literal)
            ? checker.getContextualType(literal)
            : undefined;
          let symbol;
          if (contextual !== undefined) {
            symbol = checker.getPropertyOfType(contextual, node.name.text);
            if (symbol === undefined && contextual.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) {
              refuse(node.name.text, "2 literal typed any");
            }
            if (symbol === undefined && contextual.isUnion()) {
              for (const t of contextual.types) {
                const p = checker.getPropertyOfType(t, node.name.text);
                if (p !== undefined && declaredOutside(p)) refuse(node.name.text, "2 resolves outside src");
              }
            }
          }
          used.add(node.name.text);
          declared.set(node.name.text, (declared.get(node.name.text) ?? 0) + 1);
          if (symbol !== undefined && declaredOutside(symbol))
            refuse(node.name.text, "2 resolves outside src");
        } else if (ts.isStringLiteral(node.name)) refuse(node.name.text, "4 quoted key");
      } else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        // `const { a, b: c } = x`: the key is a property of x's type
        const key = node.propertyName ?? node.name;
        if (ts.isIdentifier(key)) {
          const t = checker.getTypeAtLocation(node.parent);
          const p = checker.getPropertyOfType(t, key.text);
          used.add(key.text);
          declared.set(key.text, (declared.get(key.text) ?? 0) + 1);
          if (p === undefined || declaredOutside(p)) refuse(key.text, "2 destructured from outside src");
        } else if (ts.isStringLiteral(key)) refuse(key.text, "4 quoted key");
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  // 4. the public surface
  const seenTypes = new Set();
  const trail = [];
  const visitType = (type, via = "?") => {
    if (type === undefined || seenTypes.has(type)) return;
    seenTypes.add(type);
    if (process.env.MANGLE_TRAIL && checker.typeToString(type) === process.env.MANGLE_TRAIL)
      console.error(trail.join(" > "), via);
    trail.push(via);
    try {
      visitType0(type);
    } finally {
      trail.pop();
    }
  };
  const visitType0 = (type) => {
    if (type.isUnionOrIntersection()) for (const t of type.types) visitType(t);
    const sym = type.getSymbol() ?? type.aliasSymbol;
    const fromSrc =
      sym === undefined || (sym.declarations ?? []).some((d) => isSrc(d.getSourceFile().fileName));
    for (const p of checker.getPropertiesOfType(type)) {
      // `private`, `protected` and `#private` members are not the API (a declaration file shows them
      // untyped)
      const decl = p.valueDeclaration ?? p.declarations?.[0];
      if (p.name.startsWith("#")) continue;
      if (
        decl !== undefined &&
        ts.getCombinedModifierFlags(decl) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)
      ) {
        continue;
      }
      refuse(p.name, `4 public API (${checker.typeToString(type).slice(0, 60)})`);
      if (fromSrc && p.valueDeclaration !== undefined)
        visitType(checker.getTypeOfSymbolAtLocation(p, p.valueDeclaration));
      else if (fromSrc && p.declarations?.[0])
        visitType(checker.getTypeOfSymbolAtLocation(p, p.declarations[0]));
    }
    if (!fromSrc) return;
    for (const kind of [ts.SignatureKind.Call, ts.SignatureKind.Construct]) {
      for (const sig of checker.getSignaturesOfType(type, kind)) {
        // a `private constructor(...)` is not callable from outside
        if (sig.declaration && ts.getCombinedModifierFlags(sig.declaration) & ts.ModifierFlags.Private)
          continue;
        for (const param of sig.getParameters()) visitType(checker.getTypeOfSymbol(param));
        visitType(sig.getReturnType());
      }
    }
    for (const arg of type.aliasTypeArguments ?? []) visitType(arg);
    if (type.flags & ts.TypeFlags.Object && type.objectFlags & ts.ObjectFlags.Reference) {
      for (const arg of checker.getTypeArguments(type)) visitType(arg);
    }
    for (const info of checker.getIndexInfosOfType(type)) visitType(info.type);
  };
  for (const entry of PUBLIC_ENTRIES) {
    const sf = prog.getSourceFile(path.join(root, entry));
    if (sf === undefined) continue;
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    if (moduleSymbol === undefined) continue;
    for (let sym of checker.getExportsOfModule(moduleSymbol)) {
      refuse(sym.name, "4 public API");
      if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      if (
        sym.flags &
        (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class | ts.SymbolFlags.Enum)
      ) {
        visitType(checker.getDeclaredTypeOfSymbol(sym));
      }
      if (sym.flags & ts.SymbolFlags.Value && sym.valueDeclaration !== undefined) {
        visitType(checker.getTypeOfSymbolAtLocation(sym, sym.valueDeclaration));
      }
    }
  }

  if (process.env.MANGLE_WHY) {
    for (const name of process.env.MANGLE_WHY.split(",")) {
      console.error(name, {
        declared: declared.get(name),
        refused: why.get(name),
        external: EXTERNAL.has(name),
      });
    }
  }
  for (const name of unsafe) used.add(name);
  const names = new Map();
  for (const [name, count] of declared) {
    if (unsafe.has(name) || EXTERNAL.has(name)) continue;
    if (name.length < 3) continue; // nothing to gain, and short names are the likeliest to collide
    names.set(name, count);
  }
  return { names, used };
}

/** Short names: a, b, ..., Z, aa, ab, ...; never one in `avoid`. */
function* shortNames(avoid) {
  const first = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$";
  const rest = `${first}0123456789`;
  for (let len = 1; ; len++) {
    const gen = function* (prefix, left) {
      if (left === 0) {
        yield prefix;
        return;
      }
      for (const c of prefix === "" ? first : rest) yield* gen(prefix + c, left - 1);
    };
    for (const n of gen("", len)) if (!avoid.has(n)) yield n;
  }
}

/**
 * The esbuild options: `mangleProps` (exactly the safe names) and a `mangleCache` fixing each one's
 * short name, the same in every build.
 */
/**
 * A digest of everything the mapping depends on: every file under src/, tsconfig.json, this script
 * and the TypeScript version (its lib typings decide rule 3). Same digest, same mapping.
 */
function inputsDigest() {
  const hash = createHash("sha256");
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(full);
    }
  };
  walk(srcDir);
  files.sort();
  files.push(path.join(root, "tsconfig.json"), fileURLToPath(import.meta.url));
  for (const file of files) {
    hash.update(path.relative(root, file));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  hash.update(readFileSync(require.resolve("typescript/package.json")));
  return hash.digest("hex").slice(0, 32);
}

const cacheDir = path.join(root, "node_modules", ".cache", "structura-mangle");

/**
 * The mapping, from node_modules/.cache when the inputs are unchanged: the checker pass costs 5–30 s
 * a build. A fresh checkout (no cache) computes it, so CI always checks the rules; `MANGLE_CACHE=0`
 * forces that here too.
 */
export function mangleOptions() {
  const digest = inputsDigest();
  const file = path.join(cacheDir, `${digest}.json`);
  if (process.env.MANGLE_CACHE !== "0") {
    try {
      const saved = JSON.parse(readFileSync(file, "utf8"));
      return {
        mangleProps: new RegExp(saved.mangleProps),
        mangleCache: saved.mangleCache,
        mangleQuoted: false,
      };
    } catch {
      // absent or unreadable: compute it
    }
  }
  const options = computeMangleOptions();
  try {
    mkdirSync(cacheDir, { recursive: true });
    // keep one mapping: the cache is a build artefact, not a history
    for (const old of readdirSync(cacheDir)) rmSync(path.join(cacheDir, old), { force: true });
    writeFileSync(
      file,
      JSON.stringify({ mangleProps: options.mangleProps.source, mangleCache: options.mangleCache }),
    );
  } catch {
    // a read-only node_modules only costs the next build the checker pass
  }
  return options;
}

function computeMangleOptions() {
  const { names, used } = safeNames();
  const ordered = [...names].sort(
    (a, b) => b[1] * b[0].length - a[1] * a[0].length || (a[0] < b[0] ? -1 : 1),
  );
  const cache = {};
  const gen = shortNames(used);
  for (const [name] of ordered) cache[name] = gen.next().value;
  const escaped = ordered.map(([name]) => name.replace(/\$/g, "\\$")).sort();
  return {
    mangleProps: new RegExp(`^(?:${escaped.join("|") || "(?!)"})$`),
    mangleCache: cache,
    // `x["name"]` is never renamed (rule 4 keeps such names out anyway)
    mangleQuoted: false,
  };
}

// `node scripts/mangle.mjs`: the mapping; `MANGLE_WHY=a,b node scripts/mangle.mjs`: also why each of
// those names is kept (the first rule that refused it).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const { mangleCache } = mangleOptions();
  const entries = Object.entries(mangleCache);
  for (const [name, short] of entries) console.log(`${name} -> ${short}`);
  console.error(`${entries.length} names, ${Date.now() - started} ms`);
}
