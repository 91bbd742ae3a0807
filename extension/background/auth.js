// Connecting to a server: the connect page hands over a token, which is checked with GET /me
// before it is kept; disconnecting; choosing another server.

import { connectUrl, isBuiltinServer, normalizeServer } from '../shared/server-url.js';
import { refreshAccount } from './account.js';
import { errorInfo } from './context.js';
import { clearCache } from './lookup.js';
import { flushQueue } from './queue.js';

const CONNECT_SCRIPT_ID = 'paperscope-connect';

export async function openConnectPage(ctx) {
  const { server } = await ctx.local.get('server');
  const url = connectUrl(server, ctx.chrome.runtime.id);
  await ctx.chrome.tabs.create({ url });
  return { url };
}

function senderOrigin(sender) {
  try {
    return new URL(sender?.url ?? sender?.origin ?? '').origin;
  } catch {
    return '';
  }
}

export function isExtensionSender(ctx, sender) {
  return Boolean(sender?.url?.startsWith(ctx.chrome.runtime.getURL('')));
}

// A token from the connect page counts only if that page is on the configured server.
export async function receiveToken(ctx, { token, server: claimed }, sender) {
  const { server } = await ctx.local.get('server');
  if (!isExtensionSender(ctx, sender)) {
    const origin = senderOrigin(sender);
    if (origin !== new URL(server).origin) return { status: 'rejected', detail: `Token from ${origin} ignored: the server is ${server}.` };
    if (claimed && normalizeServer(claimed) && new URL(normalizeServer(claimed)).origin !== origin) return { status: 'rejected', detail: 'Token names another server.' };
  }
  const clean = typeof token === 'string' ? token.trim() : '';
  if (!clean || clean.length > 500 || /\s/.test(clean)) return { status: 'rejected', detail: 'That is not a token.' };
  const { staySignedIn } = await ctx.local.get('staySignedIn');
  try {
    const account = await ctx.api.me({ token: clean });
    await ctx.tokens.set(clean, { persist: staySignedIn });
    await ctx.local.set({ account, authState: 'ok', lastError: null });
  } catch (error) {
    if (error.kind === 'auth' || error.kind === 'client') return { status: 'rejected', detail: 'The server did not accept this token.' };
    await ctx.tokens.set(clean, { persist: staySignedIn });
    await ctx.local.set({ account: null, authState: 'ok', lastError: errorInfo(error, ctx.now()) });
    return { status: 'stored', detail: `Token kept; ${error.detail || 'the server did not answer'}.` };
  }
  await refreshAccount(ctx, { force: true });
  await flushQueue(ctx);
  const { account } = await ctx.local.get('account');
  return { status: 'connected', username: account?.username ?? null };
}

// "Stay signed in" (options page): keep a durable copy of the token, or forget it with the session.
export async function setStaySignedIn(ctx, { stay }) {
  const persist = stay === true;
  await ctx.local.set({ staySignedIn: persist });
  await ctx.tokens.keep(persist);
  return { status: 'saved', staySignedIn: persist };
}

export async function disconnect(ctx) {
  await ctx.tokens.clear();
  await ctx.local.set({ account: null, authState: 'none', lists: { items: [], fetchedAt: 0 }, follows: { items: [], fetchedAt: 0 }, defaultListId: null });
  return { status: 'disconnected' };
}

// The options page asks for the host permission first (it needs the user's click); here the
// server is stored, the cache emptied, and the connect page's content script registered.
export async function setServer(ctx, { server: raw }) {
  const server = normalizeServer(raw);
  if (!server) return { status: 'rejected', detail: 'Enter an http:// or https:// address.' };
  const { server: old } = await ctx.local.get('server');
  if (server !== old) {
    await ctx.local.set({ server });
    await disconnect(ctx);
    await clearCache(ctx);
  }
  await registerConnectScript(ctx, server);
  return { status: 'saved', server };
}

export async function registerConnectScript(ctx, server) {
  const scripting = ctx.chrome.scripting;
  if (!scripting?.registerContentScripts) return false;
  const registered = await scripting.getRegisteredContentScripts({ ids: [CONNECT_SCRIPT_ID] }).catch(() => []);
  if (registered.length) await scripting.unregisterContentScripts({ ids: [CONNECT_SCRIPT_ID] });
  if (isBuiltinServer(server)) return false;
  const url = new URL(server);
  const match = `${url.protocol}//${url.hostname}${url.pathname.replace(/\/$/, '')}/extension/connect*`;
  await scripting.registerContentScripts([{ id: CONNECT_SCRIPT_ID, matches: [match], js: ['content/connect.js'], runAt: 'document_start' }]);
  return true;
}
