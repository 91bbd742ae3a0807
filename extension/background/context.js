// What every handler gets: storage, the API client, the clock and the locks. Built afresh for each
// event, so the service worker can be stopped at any time without losing anything.

import { createApiClient } from '../shared/api-client.js';
import { createStore } from '../shared/storage.js';
import { createTokenStore, idbStore } from '../shared/token-store.js';

export function createContext({ chrome = globalThis.chrome, fetch = globalThis.fetch?.bind(globalThis), now = Date.now, locks = globalThis.navigator?.locks, durable = idbStore() } = {}) {
  const local = createStore(chrome.storage.local);
  const tokens = createTokenStore({ session: chrome.storage.session, durable });
  const api = createApiClient({
    fetch,
    getServer: async () => (await local.get('server')).server,
    getToken: () => tokens.get(),
  });
  // Lookups are cached in memory-backed session storage.
  const cache = chrome.storage.session;
  // Work a handler leaves until its answer has been sent (service-worker.js runs it).
  const deferred = [];
  const afterReply = (fn) => deferred.push(fn);
  const runDeferred = () => deferred.splice(0).forEach((fn) => fn());
  return { chrome, local, tokens, api, cache, now, locks, afterReply, runDeferred };
}

// Runs fn alone among all holders of the named lock (Web Locks: shared by every event the worker
// handles, and by the popup and options pages).
export function withLock(ctx, name, fn) {
  return ctx.locks ? ctx.locks.request(`paperscope:${name}`, fn) : fn();
}

export function errorInfo(error, now) {
  return { kind: error?.kind ?? 'internal', detail: String(error?.detail || error?.message || error), at: now };
}
