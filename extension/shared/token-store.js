// Where the API token lives (security finding 2, docs/security.md): in chrome.storage.session,
// which only the service worker and the extension's own pages can read (its access level is set
// to TRUSTED_CONTEXTS at start-up); never in chrome.storage.local, which every content script
// can read. When the person keeps "Stay signed in" (options page, on by default), a copy also goes
// into the extension origin's IndexedDB: content scripts run in the web page's origin and cannot
// open it, and it survives the browser restart that empties the session area.

export function createTokenStore({ session, durable = null }) {
  return {
    async get() {
      const { token } = await session.get('token');
      if (token) return token;
      const kept = durable ? await durable.get('token').catch(() => null) : null;
      if (!kept) return null;
      await session.set({ token: kept });
      return kept;
    },
    async set(token, { persist }) {
      await session.set({ token });
      if (!durable) return;
      if (persist) await durable.put('token', token);
      else await durable.delete('token');
    },
    async keep(persist) {
      const { token } = await session.get('token');
      if (durable && token && persist) await durable.put('token', token);
      if (durable && !persist) await durable.delete('token');
    },
    async clear() {
      await session.remove('token');
      if (durable) await durable.delete('token');
    },
  };
}

// A tiny key-value store over IndexedDB (one object store), or null where there is none.
export function idbStore(indexedDB = globalThis.indexedDB, name = 'paperscope') {
  if (!indexedDB) return null;
  const open = () =>
    new Promise((resolve, reject) => {
      const request = indexedDB.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore('kv');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  const run = async (mode, op) => {
    const db = await open();
    try {
      return await new Promise((resolve, reject) => {
        const request = op(db.transaction('kv', mode).objectStore('kv'));
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
    } finally {
      db.close();
    }
  };
  return {
    get: (key) => run('readonly', (store) => store.get(key)),
    put: (key, value) => run('readwrite', (store) => store.put(value, key)),
    delete: (key) => run('readwrite', (store) => store.delete(key)),
  };
}

// Trusted contexts only for the session area, explicitly: it is the default, but a default is
// not a promise, and this area holds the token.
export async function lockSession(session) {
  if (session?.setAccessLevel) await session.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' });
}
