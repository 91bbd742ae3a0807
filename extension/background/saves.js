// Saving papers: a save is queued first (so it survives the worker stopping), then delivered at
// once when the server answers. Undo cancels a save still queued, or queues its removal.

import { withLock } from './context.js';
import { enqueue, flushQueue, newOpId, recordRecent } from './queue.js';

const ID_PATTERN = /^([a-z-]+(\.[A-Z]{2})?\/\d{7}|\d{4}\.\d{4,5})$/;

function cleanId(raw) {
  const id = String(raw ?? '').trim().replace(/^arxiv:/i, '').replace(/v\d+$/, '');
  if (!ID_PATTERN.test(id)) throw Object.assign(new Error(`Not an arXiv id: ${raw}`), { kind: 'client' });
  return id;
}

async function outcome(ctx, saveId) {
  const { queue, recent, lastError, authState } = await ctx.local.get('queue', 'recent', 'lastError', 'authState');
  const token = await ctx.tokens.get();
  if (queue.some((op) => op.id === saveId || op.saveId === saveId)) {
    const reason = !token ? 'not-connected' : authState === 'expired' ? 'token-expired' : (lastError?.kind ?? 'offline');
    return { status: 'queued', saveId, reason, queued: queue.length };
  }
  const entry = recent.find((item) => item.saveId === saveId);
  return { status: entry?.state ?? 'saved', saveId, error: entry?.error ?? null, queued: queue.length };
}

export async function savePaper(ctx, { arxivId, listId = null, note = '' }) {
  const id = cleanId(arxivId);
  const now = ctx.now();
  const op = { id: newOpId(now), kind: 'add', arxivId: id, listId, note: String(note ?? '').slice(0, 2000), createdAt: now };
  const { added } = await enqueue(ctx, op);
  const saveId = added?.id ?? op.id;
  await withLock(ctx, 'queue', async () => {
    const { recent } = await ctx.local.get('recent');
    await ctx.local.set({ recent: recordRecent(recent, { saveId, arxivId: id, listId, at: now, state: 'queued' }) });
  });
  await flushQueue(ctx);
  return outcome(ctx, saveId);
}

export async function unsavePaper(ctx, { arxivId, listId = null }) {
  const id = cleanId(arxivId);
  const { saved } = await ctx.local.get('saved');
  const lists = listId !== null ? [listId] : (saved[id] ?? [null]);
  for (const list of lists) {
    await enqueue(ctx, { id: newOpId(ctx.now()), kind: 'remove', arxivId: id, listId: list, createdAt: ctx.now() });
  }
  const left = await flushQueue(ctx);
  return { status: left ? 'queued' : 'removed', queued: left };
}

export async function undoSave(ctx, { saveId }) {
  const { recent } = await ctx.local.get('recent');
  const entry = recent.find((item) => item.saveId === saveId);
  if (!entry) return { status: 'unknown' };
  const remove = { id: newOpId(ctx.now()), kind: 'remove', arxivId: entry.arxivId, listId: entry.listId, saveId, createdAt: ctx.now() };
  const { cancelled } = await enqueue(ctx, remove);
  if (cancelled) {
    await withLock(ctx, 'queue', async () => {
      const { recent: latest } = await ctx.local.get('recent');
      await ctx.local.set({ recent: recordRecent(latest, { ...entry, state: 'undone' }) });
    });
    return { status: 'undone' };
  }
  const left = await flushQueue(ctx);
  return { status: left ? 'queued' : 'undone', queued: left };
}
