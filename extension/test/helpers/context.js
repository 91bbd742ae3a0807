// A handler context over the fake chrome and fake server, as the service worker builds it.

import { createContext } from '../../background/context.js';
import { createFakeDurable } from './fake-chrome.js';
import { createFakeChrome, createLocks } from './fake-chrome.js';
import { createFakeServer } from './fake-server.js';

export async function makeContext({ connected = true, now = () => 1_700_000_000_000 } = {}) {
  const fake = createFakeChrome();
  const server = createFakeServer();
  const durable = createFakeDurable();
  const ctx = createContext({ chrome: fake.chrome, fetch: server.fetch, now, locks: createLocks(), durable });
  if (connected) {
    await ctx.tokens.set('good-token', { persist: true });
    await fake.chrome.storage.local.set({ authState: 'ok', account: { username: 'alice', defaultList: 7 } });
  }
  return { ctx, fake, server, durable };
}
