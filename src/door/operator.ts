// The operator's routes (/admin/…, ADMIN_API_KEY): each feature keeps its own in `admin-routes.ts`
// beside its routes, built from this, and src/app.ts mounts them all after the agents' routes.
import { Elysia } from "elysia";
import { assertAdmin } from "../auth/keys";
import { door } from ".";

/**
 * A plugin under /admin whose every route takes the operator key, with the door's verbs (read, write).
 * The key is checked in transform, before validation: without it nothing about the route is revealed.
 * "local": a scoped transform would also guard every route the app registers after this plugin.
 */
export const operatorRoutes = <const Name extends string>(name: Name) =>
  new Elysia({ prefix: "/admin", name })
    .use(door)
    .onTransform({ as: "local" }, ({ headers, request }) => assertAdmin(headers.authorization, request));
