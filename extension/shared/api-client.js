// The only fetch() of the extension: base URL from the options, the token from extension storage,
// and every failure mapped to one ApiError kind that callers can act on.

export const MAX_LOOKUP_IDS = 2000;
const MAX_PAGES = 20;

// Kinds after which a save is kept and tried again later.
export const RETRYABLE = new Set(['offline', 'timeout', 'server', 'throttled', 'garbage', 'auth', 'no-token']);

export class ApiError extends Error {
  constructor(kind, { status = 0, code = '', detail = '', retryAfter = 0, body = null } = {}) {
    super(detail || `${kind}${status ? ` (HTTP ${status})` : ''}`);
    this.name = 'ApiError';
    Object.assign(this, { kind, status, code, detail, retryAfter, body });
  }

  get retryable() {
    return RETRYABLE.has(this.kind);
  }
}

function kindForStatus(status) {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'throttled';
  if (status >= 500) return 'server';
  return 'client';
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isText = (value) => typeof value === 'string' && value.length > 0 && value.length <= 500;

export function cleanTag(tag) {
  if (!isObject(tag) || !isText(tag.slug) || !isText(tag.name)) return null;
  return {
    slug: tag.slug,
    name: tag.name,
    area: isText(tag.area) ? tag.area : null,
    // How likely the tag is right, the number shown beside it (DESIGN.md "Chips"); a server
    // older than the field showed the score. The score itself the page does not need.
    confidence: Number.isFinite(tag.confidence) ? tag.confidence : Number.isFinite(tag.score) ? tag.score : null,
    rank: Number.isFinite(tag.rank) ? tag.rank : null,
    // The server's display rule (DESIGN.md "Chips"): render the shown tags, in order. null from
    // a server older than the flags.
    shown: typeof tag.shown === 'boolean' ? tag.shown : null,
    implied: typeof tag.implied === 'boolean' ? tag.implied : null,
  };
}

export function cleanPaper(paper) {
  if (!isObject(paper) || !isText(paper.arxiv_id)) return null;
  const tags = Array.isArray(paper.tags) ? paper.tags.map(cleanTag).filter(Boolean) : [];
  return {
    arxivId: paper.arxiv_id,
    version: Number.isInteger(paper.version) ? paper.version : null,
    tags,
  };
}

function cleanLookup(body) {
  if (!isObject(body) || !Array.isArray(body.papers)) throw new ApiError('garbage', { detail: 'Lookup answer has no papers.' });
  const strings = (list) => (Array.isArray(list) ? list.filter(isText) : []);
  return {
    papers: body.papers.map(cleanPaper).filter(Boolean),
    pending: strings(body.pending),
    notFound: strings(body.not_found),
  };
}

export function createApiClient({ fetch, getServer, getToken, timeoutMs = 10000 }) {
  async function request(method, path, { body, auth = false, server, token: givenToken } = {}) {
    const base = server ?? (await getServer());
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (auth) {
      const token = givenToken ?? (await getToken());
      if (!token) throw new ApiError('no-token', { detail: 'Not connected to a Paperscope server.' });
      headers.Authorization = `Bearer ${token}`;
    }
    const url = path.startsWith('http') ? path : base + path;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch (error) {
      const kind = error?.name === 'AbortError' ? 'timeout' : 'offline';
      throw new ApiError(kind, { detail: kind === 'timeout' ? `No answer from ${base} in ${timeoutMs / 1000} s.` : `Cannot reach ${base}.` });
    } finally {
      clearTimeout(timer);
    }
    if (response.status === 204) return null;
    const text = await response.text().catch(() => '');
    let data;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = undefined;
    }
    if (!response.ok) {
      const kind = kindForStatus(response.status);
      const info = isObject(data) ? data : {};
      throw new ApiError(kind, {
        status: response.status,
        code: typeof info.code === 'string' ? info.code : '',
        detail: typeof info.detail === 'string' ? info.detail : `HTTP ${response.status} from ${base}.`,
        retryAfter: Number(response.headers?.get?.('Retry-After')) || 0,
        body: isObject(data) ? data : null,
      });
    }
    if (data === undefined) throw new ApiError('garbage', { status: response.status, detail: `${base} did not answer JSON.` });
    return data;
  }

  async function pages(path) {
    const server = await getServer();
    const results = [];
    let next = path;
    for (let page = 0; next && page < MAX_PAGES; page += 1) {
      const data = await request('GET', next, { auth: true, server });
      if (!isObject(data) || !Array.isArray(data.results)) throw new ApiError('garbage', { detail: `${path} answered no results.` });
      results.push(...data.results.filter(isObject));
      next = typeof data.next === 'string' && data.next.startsWith(server) ? data.next : null;
    }
    return results;
  }

  async function lookupChunk(ids, server) {
    try {
      return cleanLookup(await request('POST', '/api/v1/papers/lookup', { body: { ids }, server }));
    } catch (error) {
      const invalid = error.body?.invalid_ids;
      if (error.kind !== 'client' || !Array.isArray(invalid) || invalid.length === 0) throw error;
      const rest = ids.filter((id) => !invalid.includes(id));
      const answer = rest.length ? cleanLookup(await request('POST', '/api/v1/papers/lookup', { body: { ids: rest }, server })) : { papers: [], pending: [], notFound: [] };
      return { ...answer, notFound: [...answer.notFound, ...invalid.filter(isText)] };
    }
  }

  return {
    request,

    // `server`: the base URL when the caller has read it already (else it is read here).
    async lookup(ids, { server } = {}) {
      const out = { papers: [], pending: [], notFound: [] };
      for (let start = 0; start < ids.length; start += MAX_LOOKUP_IDS) {
        const part = await lookupChunk(ids.slice(start, start + MAX_LOOKUP_IDS), server);
        out.papers.push(...part.papers);
        out.pending.push(...part.pending);
        out.notFound.push(...part.notFound);
      }
      return out;
    },

    async me({ server, token } = {}) {
      const data = await request('GET', '/api/v1/me', { auth: true, server, token });
      if (!isObject(data) || !isText(data.username)) throw new ApiError('garbage', { detail: '/api/v1/me answered no username.' });
      return { username: data.username, defaultList: data.default_list ?? null };
    },

    async follows() {
      return (await pages('/api/v1/me/follows'))
        .filter((topic) => isText(topic.slug))
        .map((topic) => ({ slug: topic.slug, name: isText(topic.name) ? topic.name : topic.slug, area: isText(topic.area) ? topic.area : null }));
    },

    async lists() {
      return (await pages('/api/v1/me/lists'))
        .filter((list) => list.id !== undefined && list.id !== null)
        .map((list) => ({ id: list.id, name: isText(list.name) ? list.name : `List ${list.id}`, isDefault: Boolean(list.is_default), itemCount: Number(list.item_count) || 0 }));
    },

    addItem(listId, arxivId, note = '') {
      // No empty note: saving again must not wipe a note written on the server.
      const body = note ? { arxiv_id: arxivId, note } : { arxiv_id: arxivId };
      return request('POST', `/api/v1/me/lists/${encodeURIComponent(listId)}/items`, { auth: true, body });
    },

    removeItem(listId, arxivId) {
      // Old-style ids keep their slash: the server routes <path:arxiv_id>.
      const id = arxivId.split('/').map(encodeURIComponent).join('/');
      return request('DELETE', `/api/v1/me/lists/${encodeURIComponent(listId)}/items/${id}`, { auth: true });
    },
  };
}
