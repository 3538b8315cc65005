// /mcp answers only requests addressed to the service by one of its own names (MCP transports: servers
// must validate Origin, against DNS rebinding). A web page whose site name is made to resolve to this
// machine still sends that site's name as Host and Origin, and is refused with 403 before anything
// else is looked at. Own names: the bound host and the loopback names with the port the service
// listens on, and MCP_ALLOWED_HOSTS (a public deployment's names; an entry without a port takes any).
import { config, type HostName } from "../config";
import { forbidden } from "../errors";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

/** The names the service listening on `port` answers to. */
function ownNames(port: number): HostName[] {
  const bound = URL.parse(`http://${config.host.includes(":") ? `[${config.host}]` : config.host}`)?.hostname;
  const local = [...(bound ? [bound] : []), ...LOOPBACK].map((hostname) => ({ hostname, port }));
  return [...local, ...config.mcpAllowedHosts];
}

/** Host and port of a URL as the client addressed it (the scheme's default port when it names none). */
function addressed(url: URL | null): { hostname: string; port: number } | null {
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return null;
  return { hostname: url.hostname, port: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80 };
}

const isOwn = (names: HostName[], target: { hostname: string; port: number } | null) =>
  target !== null && names.some((name) => name.hostname === target.hostname && (name.port === null || name.port === target.port));

/** Throws 403 FORBIDDEN unless Host (and Origin, when a browser sent one) name this service. */
export function assertAddressedToUs(request: Request, port: number): void {
  const names = ownNames(port);
  const host = request.headers.get("host") ?? "";
  // A Host header is a bare authority: anything else in it (a path, user info) makes it foreign.
  const hostUrl = /^[^/?#@\\\s]+$/.test(host) ? URL.parse(`http://${host}`) : null;
  if (!isOwn(names, addressed(hostUrl))) throw forbidden(`/mcp does not answer for the host "${host.slice(0, 100)}": it answers only at this service's own names (the operator lists public ones in MCP_ALLOWED_HOSTS)`);
  const origin = request.headers.get("origin");
  if (origin !== null && !isOwn(names, addressed(URL.parse(origin)))) {
    throw forbidden(`/mcp does not answer pages from the origin "${origin.slice(0, 100)}": it answers only at this service's own names (the operator lists public ones in MCP_ALLOWED_HOSTS)`);
  }
}
