// What the console answers for an address under /console that is none of its pages (a mistyped link, an
// old bookmark, an id cut short): a console page that says so, 404, with the way back — never the API's
// JSON. Registered for /console with the error handler (src/http/errors.ts, answerUnknownAddressesWith).
import { read } from "../db";
import { sessionOf } from "../owners/sessions";
import { signedInPage } from "./door";
import { bare, html, page } from "./views";

const NOT_FOUND = html`<section id="not-found"><p class="error">The console has no page at this address.</p><p><a href="/console">Back to the overview</a></p></section>`;

export async function consoleNotFound(request: Request): Promise<Response> {
  const session = await read(sessionOf(request));
  return session ? signedInPage(session, "Page not found", "", NOT_FOUND, 404) : page(bare("Page not found", NOT_FOUND), 404);
}
