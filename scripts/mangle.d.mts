// Types of scripts/mangle.mjs (plain Node), for tsup.config.ts.
export declare const PUBLIC_ENTRIES: readonly string[];
export declare function safeNames(): { names: Map<string, number>; used: Set<string> };
export declare function mangleOptions(): {
  mangleProps: RegExp;
  mangleCache: Record<string, string>;
  mangleQuoted: boolean;
};
