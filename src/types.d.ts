declare module "*.sql" {
  const text: string;
  export default text;
}

/** Imported `with { type: "file" }`: the path of the embedded file. */
declare module "*/scalar.bundle.js" {
  const path: string;
  export default path;
}

declare module "solc" {
  const solc: { compile(input: string): string; version(): string };
  export default solc;
}

declare module "autocannon" {
  const autocannon: (options: Record<string, unknown>) => Promise<any>;
  export default autocannon;
}
