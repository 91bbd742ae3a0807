// A fake fetch() that answers like the Paperscope API, with switches for the failures the
// extension must survive: down, slow, garbage, expired token.

export function createFakeServer({ origin = 'http://127.0.0.1:8000', token = 'good-token' } = {}) {
  const state = {
    down: false,
    garbage: false,
    token,
    papers: new Map(),
    pending: new Set(),
    lists: [{ id: 7, name: 'Reading list', is_default: true, item_count: 0 }],
    items: new Map([[7, new Map()]]),
    follows: [{ slug: 'graph-neural-networks', name: 'Graph neural networks', area: 'ml' }],
    requests: [],
  };

  const json = (status, body) => new Response(body === null ? null : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

  function authorised(headers) {
    return headers.Authorization === `Bearer ${state.token}`;
  }

  function route(method, path, body, headers) {
    if (path === '/api/v1/papers/lookup' && method === 'POST') {
      const papers = body.ids.filter((id) => state.papers.has(id)).map((id) => state.papers.get(id));
      const pending = body.ids.filter((id) => !state.papers.has(id));
      return json(200, { papers, pending, not_found: [] });
    }
    if (!path.startsWith('/api/v1/me')) return json(404, { code: 'not_found', detail: 'Not found.' });
    if (!authorised(headers)) return json(401, { code: 'not_authenticated', detail: 'Token missing or revoked.' });
    if (path === '/api/v1/me') return json(200, { username: 'alice', default_list: 7 });
    if (path === '/api/v1/me/follows') return json(200, { results: state.follows, next: null });
    if (path === '/api/v1/me/lists') return json(200, { results: state.lists, next: null });
    const match = /^\/api\/v1\/me\/lists\/(\d+)\/items(?:\/(.+))?$/.exec(path);
    const items = match && state.items.get(Number(match[1]));
    if (!items) return json(404, { code: 'not_found', detail: 'No such list.' });
    if (method === 'POST') {
      const had = items.has(body.arxiv_id);
      items.set(body.arxiv_id, body.note ?? '');
      return json(had ? 200 : 201, { arxiv_id: body.arxiv_id });
    }
    if (method === 'DELETE') return items.delete(decodeURIComponent(match[2])) ? json(204, null) : json(404, { code: 'not_found', detail: 'Not in list.' });
    return json(405, { code: 'method_not_allowed', detail: method });
  }

  async function fetch(url, init = {}) {
    const parsed = new URL(url);
    const body = init.body ? JSON.parse(init.body) : null;
    state.requests.push({ method: init.method ?? 'GET', path: parsed.pathname, body });
    if (state.down || parsed.origin !== origin) throw new TypeError('Failed to fetch');
    if (state.garbage) return new Response('<html>Bad gateway</html>', { status: 200 });
    return route(init.method ?? 'GET', parsed.pathname, body, init.headers ?? {});
  }

  function addPaper(arxivId, tags = [{ slug: 'graph-neural-networks', name: 'Graph neural networks', area: 'ml', score: 0.9, confidence: 0.75, rank: 1, source: 'model', shown: true, implied: false }]) {
    state.papers.set(arxivId, { arxiv_id: arxivId, version: 1, title: `Paper ${arxivId}`, primary_category: 'cs.LG', tags });
  }

  return { state, fetch, addPaper, origin };
}
