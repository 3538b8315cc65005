// The operations of the OpenAPI document, each with a path to call (every parameter a fresh UUID) and
// the key scheme it takes: tests that must cover every route, new ones too, walk this list.
export type Spec = { paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>> };

export const operations = (spec: Spec) =>
  Object.entries(spec.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{[^}]+\}/g, crypto.randomUUID()),
      template: path,
      scheme: Object.keys(operation.security?.[0] ?? {})[0] ?? "public",
      /** Every key scheme it takes (POST /agents/me/keys takes the agent key or the owner key). */
      schemes: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
    })),
  );
