// The owner console over plain HTTP (no browser): sign in with the form and its CSRF cookie, read a
// page's forms and links, post a form with its fields.
import { outboxFiles, parseOutboxFile } from "./mail";
import type { TestServer } from "./server";
import { waitFor } from "./wait";

export type Form = { action: string; fields: [string, string][] };
export type ConsolePage = { status: number; html: string; headers: Headers };

const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]?.replaceAll("&amp;", "&").replaceAll("&quot;", '"');

/** GET a console page with the session cookie (if any); redirects are not followed. */
export async function getPage(server: TestServer, path: string, cookie = ""): Promise<ConsolePage> {
  const response = await fetch(server.url + path, { headers: cookie ? { cookie } : {}, redirect: "manual" });
  return { status: response.status, html: await response.text(), headers: response.headers };
}

/** POST a form as a browser would (application/x-www-form-urlencoded). */
export async function postForm(server: TestServer, action: string, fields: [string, string][], cookie = ""): Promise<ConsolePage> {
  const response = await fetch(server.url + action, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });
  return { status: response.status, html: await response.text(), headers: response.headers };
}

/**
 * Every <form method="post"> of a page with its inputs, selects and textareas, each with the value the
 * page gave it, as a browser sends the form: a checkbox or radio button only when the page checked it, a
 * select's selected option (else its first).
 */
export function formsOf(html: string): Form[] {
  const posted = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].filter(([, tag]) => attribute(tag!, "method")?.toLowerCase() === "post");
  return posted.map(([, tag, inner]) => {
    const sent = (input: string) => !["checkbox", "radio"].includes(attribute(input, "type") ?? "") || /\schecked\b/.test(input);
    const inputs = [...inner!.matchAll(/<input\b[^>]*>/g)].filter(([input]) => sent(input)).map(([input]) => [attribute(input, "name"), attribute(input, "value") ?? ""] as const);
    const selects = [...inner!.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)].map(([, selectTag, options]) => {
      const all = [...options!.matchAll(/<option\b[^>]*>/g)].map(([option]) => option);
      const chosen = all.find((option) => /\sselected\b/.test(option)) ?? all[0];
      return [attribute(selectTag!, "name"), chosen ? (attribute(chosen, "value") ?? "") : ""] as const;
    });
    const areas = [...inner!.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)].map(([, areaTag, text]) => [attribute(areaTag!, "name"), text!] as const);
    return { action: attribute(tag!, "action")!, fields: [...inputs, ...selects, ...areas].filter((field): field is [string, string] => field[0] !== undefined) };
  });
}

/** Every link within the console (`/console`, or the operator's `/operator`) a page shows. */
export const consoleLinksOf = (html: string, under = "/console") =>
  [...html.matchAll(/href="([^"]*)"/g)].map(([, href]) => href!.replaceAll("&amp;", "&")).filter((href) => href === under || href.startsWith(`${under}/`) || href.startsWith(`${under}?`));

/** Whether the page is the sign-in page (no session, or it ended). */
export const isSignIn = (page: ConsolePage) => page.html.includes('action="/console/login"');

/** Signs in with the owner key through the sign-in form; returns the session cookie to send ("name=value"). */
export async function signIn(server: TestServer, ownerKey: string): Promise<string> {
  const loginPage = await getPage(server, "/console");
  const csrfCookie = loginPage.headers.get("set-cookie")!.split(";")[0]!;
  const form = formsOf(loginPage.html).find((candidate) => candidate.action === "/console/login")!;
  const fields = form.fields.map(([name, value]): [string, string] => [name, name === "ownerKey" ? ownerKey : value]);
  const answer = await postForm(server, "/console/login", fields, csrfCookie);
  if (answer.status !== 303) throw new Error(`console sign-in failed: ${answer.status}`);
  return answer.headers.get("set-cookie")!.split(";")[0]!;
}

/** Signs in to the operator console (/operator) with an operator key through its form; returns the session cookie to send ("name=value"). */
export async function operatorSignIn(server: TestServer, key: string): Promise<{ cookie: string; setCookie: string; csrfCookie: string }> {
  const loginPage = await getPage(server, "/operator");
  const csrfCookie = loginPage.headers.get("set-cookie")!;
  const form = formsOf(loginPage.html).find((candidate) => candidate.action === "/operator/login")!;
  const answer = await postForm(server, "/operator/login", form.fields.map(([name, value]): [string, string] => [name, name === "operatorKey" ? key : value]), csrfCookie.split(";")[0]!);
  if (answer.status !== 303) throw new Error(`operator console sign-in failed: ${answer.status}`);
  const setCookie = answer.headers.get("set-cookie")!;
  return { cookie: setCookie.split(";")[0]!, setCookie, csrfCookie };
}

/** The path of the first link to `path`/… in a mail to `email` of the outbox folder (a server without SMTP_URL) that `skip` does not name. */
async function mailedLink(server: TestServer, email: string, path: string, skip: Set<string> = new Set()): Promise<string> {
  return waitFor(async () => {
    for (const file of outboxFiles(server).filter((name) => name.endsWith(".eml") && !skip.has(name))) {
      const mail = await parseOutboxFile(server, file);
      const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
      const found = new RegExp(`${server.url}(${path}/[A-Za-z0-9_-]+)`).exec(mail.text ?? "")?.[1];
      if (found && to.some((address) => address.text === email)) return found;
    }
    return undefined;
  });
}

/** Opens a mailed link's page and presses its one button, as a browser would; returns the session cookie it set ("name=value"). */
async function follow(server: TestServer, path: string): Promise<string> {
  const opened = await getPage(server, path);
  const form = formsOf(opened.html).find((candidate) => candidate.action === path)!;
  const answer = await postForm(server, form.action, form.fields, opened.headers.get("set-cookie")!.split(";")[0]!);
  if (answer.status !== 303) throw new Error(`${path}: ${answer.status}`);
  return answer.headers.get("set-cookie")!.split(";")[0]!;
}

/**
 * Claims an agent by the claim link mailed to `email` (a server with OWNER_KEY_AT_REGISTRATION=false
 * and no SMTP_URL writes it into its outbox folder); returns the owner account's session cookie.
 */
export const claimByMail = async (server: TestServer, email: string) => follow(server, await mailedLink(server, email, "/console/claim"));

/** Signs an owner account in by a link mailed to `email` (asked for with the sign-in form); returns the session cookie. */
export async function signInByMail(server: TestServer, email: string): Promise<string> {
  const before = new Set(outboxFiles(server));
  const signInPage = await getPage(server, "/console");
  const form = formsOf(signInPage.html).find((candidate) => candidate.action === "/console/login/email")!;
  const fields = form.fields.map(([name, value]): [string, string] => [name, name === "email" ? email : value]);
  const asked = await postForm(server, form.action, fields, signInPage.headers.get("set-cookie")!.split(";")[0]!);
  if (asked.status !== 200) throw new Error(`asking for a sign-in link: ${asked.status}`);
  return follow(server, await mailedLink(server, email, "/console/login/link", before));
}
