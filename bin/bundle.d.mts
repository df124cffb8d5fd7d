// Types of bundle.mjs for the project's TypeScript (its tests).
export declare function loadMain(): Promise<(argv: string[]) => Promise<number>>;
export declare function bundleEntry(options?: { root?: string; entry?: string }): Promise<string | null>;
