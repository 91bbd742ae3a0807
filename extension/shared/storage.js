// Extension state lives here, never in the service worker's globals: defaults, typed reads and
// writes over chrome.storage.local, and the schema migrations run on install and update.

import { DEFAULT_SERVER } from './server-url.js';

export const SCHEMA_VERSION = 2;

export const DEFAULTS = Object.freeze({
  schema: 0,
  server: DEFAULT_SERVER,
  staySignedIn: true, // keep the token across browser restarts (shared/token-store.js)
  account: null, // {username, defaultList} from GET /api/v1/me
  authState: 'none', // none | ok | expired
  defaultListId: null, // the user's choice in the popup; falls back to account.defaultList
  lists: { items: [], fetchedAt: 0 },
  follows: { items: [], fetchedAt: 0 },
  queue: [], // saves and removals not yet delivered, oldest first
  retryCount: 0, // consecutive failed deliveries, for the backoff
  recent: [], // the last saves made from this browser, newest first
  saved: {}, // arxivId -> [listId] saved from this browser
  lastError: null, // {kind, detail, at}
  listingFilter: 'all', // all | dim | only
});

function withDefaults(keys, found) {
  const out = {};
  for (const key of keys) out[key] = key in found ? found[key] : structuredClone(DEFAULTS[key]);
  return out;
}

export function createStore(area) {
  return {
    async get(...keys) {
      const found = await area.get(keys);
      return withDefaults(keys, found ?? {});
    },
    async getAll() {
      return this.get(...Object.keys(DEFAULTS));
    },
    set(values) {
      return area.set(values);
    },
    remove(...keys) {
      return area.remove(keys);
    },
  };
}

// Each step takes the stored values and returns the changes for its version.
// Steps that move data elsewhere get the token store.
const MIGRATIONS = [
  // 0 -> 1: first schema; nothing to carry over.
  async () => ({}),
  // 1 -> 2: the token leaves chrome.storage.local, which content scripts can read.
  async (area, tokens) => {
    const { token } = await area.get(['token']);
    if (token && tokens) await tokens.set(token, { persist: true });
    await area.remove(['token']);
    return {};
  },
];

export async function migrate(area, { tokens = null } = {}) {
  const { schema } = await createStore(area).get('schema');
  let changes = {};
  for (let version = schema; version < SCHEMA_VERSION; version += 1) {
    changes = { ...changes, ...(await MIGRATIONS[version](area, tokens)) };
  }
  if (schema < SCHEMA_VERSION) await area.set({ ...changes, schema: SCHEMA_VERSION });
  return schema;
}
