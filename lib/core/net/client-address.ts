// A client's address, for rate limits: the connection's peer, unless the peer is a reverse proxy the
// organizer named (PERFJUDGE_TRUSTED_PROXIES), whose X-Forwarded-For (or X-Real-IP) is believed up
// to the first hop that is not a trusted proxy. A forwarding header from anyone else is ignored:
// any client can write one.
//
// Next.js route handlers never see the socket, so the web server (scripts/web-server.ts) resolves
// the address on the connection and hands it on in CLIENT_ADDRESS_HEADER, replacing whatever a
// client sent under that name. Code behind it believes that header only in a process that server
// started (markClientAddressServer): under a bare `next start` a client could write it.
import { BlockList, isIP } from 'node:net';

export const CLIENT_ADDRESS_HEADER = 'x-perfjudge-client-address';
/** Every request whose address is not known shares this one key (fails closed, never open). */
export const UNKNOWN_ADDRESS = 'unknown';

export interface ConnectionFacts {
  /** The socket's remote address. */
  peer: string | undefined;
  forwardedFor: string | undefined;
  realIp: string | undefined;
}

/** `::ffff:1.2.3.4` → `1.2.3.4`; `[::1]` → `::1`; null for anything that is not an address. */
export function normalizeAddress(raw: string | undefined): string | null {
  if (!raw) return null;
  let a = raw.trim();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) a = mapped[1]!;
  if (isIP(a) === 0) return null;
  return a.toLowerCase();
}

/** The trusted-proxy setting (already validated by lib/core/config/env.ts) as a matcher. */
export function trustedProxies(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

function isTrusted(address: string, proxies: BlockList): boolean {
  return proxies.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** Where a request came from, believing forwarding headers only from trusted proxies. */
export function resolveClientAddress(facts: ConnectionFacts, proxies: BlockList): string {
  const peer = normalizeAddress(facts.peer);
  if (!peer) return UNKNOWN_ADDRESS;
  if (!isTrusted(peer, proxies)) return peer;
  // Each trusted proxy appended the address it saw: walk from the right, past the trusted ones.
  const hops = (facts.forwardedFor ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  let nearest = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i]);
    // Not an address: written by whoever is beyond the last proxy we trust.
    if (!hop) return nearest;
    if (!isTrusted(hop, proxies)) return hop;
    nearest = hop;
  }
  if (hops.length === 0) return normalizeAddress(facts.realIp) ?? peer;
  return nearest;
}

/**
 * The key rate limits count under: the address, with an IPv6 address cut to its /64 (one host is
 * usually given a whole /64, and could otherwise take a new address for every request).
 */
export function addressKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = expandIpv6(address).slice(0, 4);
  return `${groups.join(':')}::/64`;
}

function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0');
  return [...left, ...(tail === undefined ? [] : zeros), ...right].map(
    (g) => g.replace(/^0+(?=.)/, '') || '0',
  );
}

const SERVER_MARK = Symbol.for('perfjudge.clientAddressServer');
const globalForAddress = globalThis as typeof globalThis & { [SERVER_MARK]?: true };

/** Called by the web server before it serves: CLIENT_ADDRESS_HEADER is its own from now on. */
export function markClientAddressServer(): void {
  globalForAddress[SERVER_MARK] = true;
}

/** The process was started by scripts/web-server.ts (not a bare `next start` or `next dev`). */
function clientAddressHeaderIsTrusted(): boolean {
  return globalForAddress[SERVER_MARK] === true;
}

/** The client's address as the web server resolved it; UNKNOWN_ADDRESS when it cannot be known. */
export function clientAddressOf(headers: Headers | undefined): string {
  if (!headers || !clientAddressHeaderIsTrusted()) return UNKNOWN_ADDRESS;
  return normalizeAddress(headers.get(CLIENT_ADDRESS_HEADER) ?? undefined) ?? UNKNOWN_ADDRESS;
}

/** The request with CLIENT_ADDRESS_HEADER removed when this process cannot vouch for it. */
export function withTrustedClientAddress(request: Request): Request {
  if (clientAddressHeaderIsTrusted() || !request.headers.has(CLIENT_ADDRESS_HEADER)) return request;
  const headers = new Headers(request.headers);
  headers.delete(CLIENT_ADDRESS_HEADER);
  // duplex: the body (a stream, not read yet) is handed on as it is.
  return new Request(request, { headers, duplex: 'half' } as RequestInit);
}
