// The operator console's sign-in page: one field, an operator key (ADMIN_API_KEY or a named pa_… key),
// its form carrying a double-submit CSRF token as the owner console's sign-in does.
import { loginCsrf } from "../console/door";
import { html, raw } from "../console/views";
import { cookie } from "../owners/sessions";
import { OPERATOR_LOGIN_CSRF_COOKIE, OPERATOR_PATH } from "./sessions";
import { operatorBare } from "./views";

export function signInPage(request: Request, error?: string, status = 200) {
  const csrf = loginCsrf();
  return operatorBare(
    "Operator sign-in",
    html`${error ? raw(html`<p class="error">${error}</p>`) : ""}<section><p>Your operator key (pa_…), or the bootstrap key (ADMIN_API_KEY). The session lasts 8 hours at most and ends at once if the key is rotated or revoked.</p>
<form method="post" action="${OPERATOR_PATH}/login"><input type="hidden" name="csrf" value="${csrf}">
<label for="operatorKey">Operator key</label><input id="operatorKey" name="operatorKey" type="password" autocomplete="off" required>
<button type="submit">Sign in</button></form></section>`,
    status,
    { "set-cookie": cookie(OPERATOR_LOGIN_CSRF_COOKIE, csrf, request, 600, OPERATOR_PATH) },
  );
}
