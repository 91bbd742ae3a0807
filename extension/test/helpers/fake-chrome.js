// A small in-memory `chrome` for unit tests: storage areas, alarms, action badge, runtime, tabs,
// permissions and scripting, plus Web Locks. Only what the extension uses.

function event() {
  const listeners = [];
  return {
    addListener: (fn) => listeners.push(fn),
    removeListener: (fn) => listeners.splice(listeners.indexOf(fn), 1),
    dispatch: (...args) => listeners.map((fn) => fn(...args)),
    listeners,
  };
}

function storageArea(name, onChanged) {
  const data = new Map();
  const pick = (keys) => {
    if (keys === null || keys === undefined) return Object.fromEntries([...data].map(([k, v]) => [k, structuredClone(v)]));
    if (typeof keys === 'string') keys = [keys];
    if (Array.isArray(keys)) return Object.fromEntries(keys.filter((k) => data.has(k)).map((k) => [k, structuredClone(data.get(k))]));
    return Object.fromEntries(Object.entries(keys).map(([k, d]) => [k, data.has(k) ? structuredClone(data.get(k)) : d]));
  };
  return {
    data,
    async get(keys) {
      return pick(keys);
    },
    async set(values) {
      const changes = {};
      for (const [key, value] of Object.entries(values)) {
        changes[key] = { oldValue: data.get(key), newValue: structuredClone(value) };
        data.set(key, structuredClone(value));
      }
      onChanged.dispatch(changes, name);
    },
    async remove(keys) {
      for (const key of [].concat(keys)) data.delete(key);
    },
    async clear() {
      data.clear();
    },
  };
}

// The extension origin's IndexedDB as shared/token-store.js uses it.
export function createFakeDurable() {
  const data = new Map();
  return {
    data,
    get: async (key) => data.get(key),
    put: async (key, value) => void data.set(key, value),
    delete: async (key) => void data.delete(key),
  };
}

export function createLocks() {
  const tails = new Map();
  return {
    request(name, fn) {
      const previous = tails.get(name) ?? Promise.resolve();
      const run = previous.then(() => fn({ name }));
      tails.set(name, run.catch(() => {}));
      return run;
    },
  };
}

export function createFakeChrome({ id = 'testextensionid' } = {}) {
  const onChanged = event();
  const alarms = new Map();
  const badge = { text: '', color: null, title: '' };
  const tabs = [];
  const scripts = new Map();
  const chrome = {
    storage: { local: storageArea('local', onChanged), session: storageArea('session', onChanged), onChanged },
    alarms: {
      async create(name, info) {
        alarms.set(name, { name, ...info });
      },
      async clear(name) {
        return alarms.delete(name);
      },
      async get(name) {
        return alarms.get(name);
      },
      async getAll() {
        return [...alarms.values()];
      },
      onAlarm: event(),
    },
    action: {
      async setBadgeText({ text }) {
        badge.text = text;
      },
      async setBadgeBackgroundColor({ color }) {
        badge.color = color;
      },
      async setTitle({ title }) {
        badge.title = title;
      },
    },
    runtime: {
      id,
      getURL: (path) => `chrome-extension://${id}/${path}`,
      onMessage: event(),
      onInstalled: event(),
      onStartup: event(),
    },
    tabs: {
      async create(info) {
        tabs.push(info);
        return { id: tabs.length, ...info };
      },
    },
    scripting: {
      async registerContentScripts(list) {
        for (const script of list) scripts.set(script.id, script);
      },
      async unregisterContentScripts({ ids }) {
        for (const scriptId of ids) scripts.delete(scriptId);
      },
      async getRegisteredContentScripts({ ids }) {
        return ids.filter((scriptId) => scripts.has(scriptId)).map((scriptId) => scripts.get(scriptId));
      },
    },
  };
  return { chrome, alarms, badge, tabs, scripts };
}
