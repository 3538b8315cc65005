// Signing in to the operator console with an operator key, and out. The key is checked as the operator
// API checks it (auth/keys.ts: ADMIN_API_KEY as `admin`, a named key by its row); the session is bound
// to it (sessions.ts).
import { Elysia } from "elysia";
import { field, Form, redirect, reservedField, reservedMessage } from "../console/door";
import { ApiError, notFound } from "../errors";
import { cookie, readCookie, sameToken } from "../owners/sessions";
import { operatorConsoleDoor } from "./door";
import { closeOperatorSession, consoleOpen, OPERATOR_LOGIN_CSRF_COOKIE, OPERATOR_PATH, OPERATOR_SESSION_COOKIE, openOperatorSession } from "./sessions";
import { signInPage } from "./sign-in";
import { operatorRefused } from "./views";

export const signInRoutes = new Elysia({ name: "operator-console-sign-in" })
  .use(operatorConsoleDoor)
  .post(
    "/login",
    async ({ request, body }) => {
      if (!consoleOpen()) throw notFound("route");
      if (!sameToken(readCookie(request, OPERATOR_LOGIN_CSRF_COOKIE), field(body, "csrf"))) return operatorRefused("The form expired or did not come from this console. Reload and try again.");
      const reserved = reservedField(body);
      if (reserved !== null) return operatorRefused(reservedMessage(reserved), 400);
      try {
        const { token, maxAgeSeconds } = await openOperatorSession((field(body, "operatorKey") ?? "").trim());
        return redirect(OPERATOR_PATH, { "set-cookie": cookie(OPERATOR_SESSION_COOKIE, token, request, maxAgeSeconds, OPERATOR_PATH) });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 401) throw error;
        return signInPage(request, "That is not an operator key in force: a pa_… key that was rotated or revoked, or never issued, or not ADMIN_API_KEY.", 401);
      }
    },
    { body: Form, detail: { hide: true } },
  )
  .post(
    "/logout",
    async ({ request }) => {
      await closeOperatorSession(request);
      return redirect(OPERATOR_PATH, { "set-cookie": cookie(OPERATOR_SESSION_COOKIE, "", request, 0, OPERATOR_PATH) });
    },
    { operatorForm: true, body: Form, detail: { hide: true } },
  );
