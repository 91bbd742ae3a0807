// Tags for the papers on a page: one batch call for every id not in the short-lived cache, with
// the user's followed topics and this browser's saves added so the page can mark them.

import { refreshAccount } from './account.js';
import { errorInfo } from './context.js';
import { flushQueue } from './queue.js';

export const CACHE_TTL_MS = 5 * 60 * 1000;
const KEY = 'lk:';
const MAX_IDS = 6000;

export async function readCache(ctx, ids) {
  const found = await ctx.cache.get(ids.map((id) => KEY + id));
  const now = ctx.now();
  const papers = {};
  const notFound = [];
  const missing = [];
  for (const id of ids) {
    const entry = found[KEY + id];
    if (!entry || now - entry.t > CACHE_TTL_MS) missing.push(id);
    else if (entry.p) papers[id] = entry.p;
    else notFound.push(id);
  }
  return { papers, notFound, missing };
}

export async function writeCache(ctx, answer) {
  const t = ctx.now();
  const entries = {};
  for (const paper of answer.papers) entries[KEY + paper.arxivId] = { p: paper, t };
  for (const id of answer.notFound) entries[KEY + id] = { p: null, t };
  if (Object.keys(entries).length) await ctx.cache.set(entries);
}

export async function sweepCache(ctx) {
  const all = await ctx.cache.get(null);
  const now = ctx.now();
  const stale = Object.keys(all).filter((key) => key.startsWith(KEY) && now - all[key].t > CACHE_TTL_MS);
  if (stale.length) await ctx.cache.remove(stale);
  return stale.length;
}

export async function clearCache(ctx) {
  const all = await ctx.cache.get(null);
  const keys = Object.keys(all).filter((key) => key.startsWith(KEY));
  if (keys.length) await ctx.cache.remove(keys);
}

// What the page gets of the papers (shared/messages.js): each paper's tags as [topic, confidence,
// shown] triples, numbers into one list of [slug, name, area] topics. As objects, the 2,000 papers
// of the benchmark listing were a 1.06 MB message that took 25-55 ms to pass from the worker to
// the page (about as long as the server took to answer); as triples they are 95 KB and 7-11 ms.
export function forPage(papers) {
  const topics = [];
  const indexOf = new Map();
  const flat = {};
  for (const [id, paper] of Object.entries(papers)) {
    const triples = [];
    for (const tag of paper.tags) {
      const key = `${tag.slug}\u0000${tag.name}\u0000${tag.area}`;
      let index = indexOf.get(key);
      if (index === undefined) {
        index = topics.push([tag.slug, tag.name, tag.area]) - 1;
        indexOf.set(key, index);
      }
      triples.push(index, tag.confidence, tag.shown === null ? null : Number(tag.shown));
    }
    flat[id] = triples;
  }
  return { topics, papers: flat };
}

// The server answers again: deliver the saves that waited for it.
async function deliverWaiting(ctx) {
  const { queue } = await ctx.local.get('queue');
  if (queue.length) await flushQueue(ctx);
}

export async function lookupPapers(ctx, { ids }) {
  const wanted = [...new Set((Array.isArray(ids) ? ids : []).filter((id) => typeof id === 'string'))].slice(0, MAX_IDS);
  // Storage is read while other reads and the server are busy, not one read after another:
  // followed topics older than a few minutes are refetched while the lookup runs, and what the
  // answer carries besides the papers is read once that refresh is done.
  const account = refreshAccount(ctx).catch(() => null);
  const stored = account.then(() => ctx.local.get('server', 'follows', 'saved', 'listingFilter'));
  stored.catch(() => {}); // awaited below; this only keeps a failure before then from going unhandled
  const [{ papers, notFound, missing }, { server: base }] = await Promise.all([readCache(ctx, wanted), ctx.local.get('server')]);
  let pending = [];
  let error = null;
  if (missing.length) {
    try {
      const answer = await ctx.api.lookup(missing, { server: base });
      for (const paper of answer.papers) papers[paper.arxivId] = paper;
      notFound.push(...answer.notFound);
      pending = answer.pending;
      // Neither waits: the page gets its answer first (storing 2,000 papers takes ~100 ms, and
      // a timer of 0 ran it before the answer left, at the next await below).
      ctx.afterReply(() => writeCache(ctx, answer).catch(() => {}));
      deliverWaiting(ctx).catch(() => {});
    } catch (caught) {
      error = errorInfo(caught, ctx.now());
    }
  }
  const { server, follows, saved, listingFilter } = await stored;
  return {
    server,
    ...forPage(papers),
    pending,
    notFound,
    followed: follows.items.map((topic) => topic.slug),
    saved: wanted.filter((id) => saved[id]?.length),
    listingFilter,
    error,
  };
}
