// The owner console over plain HTTP (no browser): sign in with the form and its CSRF cookie, read a
// page's forms and links, post a form with its fields.
import type { TestServer } from "./server";

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
 * Every <form method="post"> of a page with its inputs and textareas, each with the value the page gave
 * it; a checkbox only when the page ticked it, as a browser sends the form.
 */
export function formsOf(html: string): Form[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map(([, tag, inner]) => {
    const sent = (input: string) => attribute(input, "type") !== "checkbox" || /\schecked\b/.test(input);
    const inputs = [...inner!.matchAll(/<input\b[^>]*>/g)].filter(([input]) => sent(input)).map(([input]) => [attribute(input, "name"), attribute(input, "value") ?? ""] as const);
    const areas = [...inner!.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)].map(([, areaTag, text]) => [attribute(areaTag!, "name"), text!] as const);
    return { action: attribute(tag!, "action")!, fields: [...inputs, ...areas].filter((field): field is [string, string] => field[0] !== undefined) };
  });
}

/** Every link within the console a page shows. */
export const consoleLinksOf = (html: string) => [...html.matchAll(/href="(\/console[^"]*)"/g)].map(([, href]) => href!.replaceAll("&amp;", "&"));

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
