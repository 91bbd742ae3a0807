// The offline queue: every save and removal is written to storage first, then delivered in order.
// A delivery that fails for a passing reason (server down, timeout, token expired) stays queued and
// is retried by an alarm with backoff; the server's POST is idempotent, so a retry never doubles.

import { errorInfo, withLock } from './context.js';

export const RETRY_ALARM = 'queue-retry';
const MAX_RECENT = 20;

export function backoffMinutes(retryCount) {
  return Math.min(0.5 * 2 ** Math.max(0, retryCount - 1), 30);
}

export function newOpId(now) {
  return `${now.toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
}

export async function updateBadge(ctx, queue) {
  const count = queue ? queue.length : (await ctx.local.get('queue')).queue.length;
  await ctx.chrome.action?.setBadgeText({ text: count ? String(count) : '' });
  await ctx.chrome.action?.setBadgeBackgroundColor?.({ color: '#b45309' });
  await ctx.chrome.action?.setTitle?.({ title: count ? `Paperscope: ${count} save(s) waiting for the server` : 'Paperscope' });
  return count;
}

function sameItem(a, b) {
  return a.arxivId === b.arxivId && String(a.listId) === String(b.listId);
}

// Adds op unless the queue already holds the same change; an opposite change cancels it instead.
export function addToQueue(queue, op) {
  const twin = queue.findIndex((queued) => sameItem(queued, op));
  if (twin === -1) return { queue: [...queue, op], added: op };
  if (queue[twin].kind === op.kind) return { queue, added: queue[twin] };
  return { queue: queue.filter((_, index) => index !== twin), added: null, cancelled: queue[twin] };
}

export function recordRecent(recent, entry) {
  const rest = recent.filter((item) => item.saveId !== entry.saveId);
  return [entry, ...rest].slice(0, MAX_RECENT);
}

export async function enqueue(ctx, op) {
  return withLock(ctx, 'queue', async () => {
    const { queue } = await ctx.local.get('queue');
    const result = addToQueue(queue, op);
    await ctx.local.set({ queue: result.queue });
    await updateBadge(ctx, result.queue);
    return result;
  });
}

// Removes a delivered or abandoned op and applies its outcome, in one write.
async function settle(ctx, op, outcome) {
  await withLock(ctx, 'queue', async () => {
    const { queue, recent, saved } = await ctx.local.get('queue', 'recent', 'saved');
    const rest = queue.filter((queued) => queued.id !== op.id);
    const lists = new Set(saved[op.arxivId] ?? []);
    if (outcome.state === 'saved') lists.add(String(op.listId));
    if (outcome.state === 'removed') lists.delete(String(op.listId));
    const nextSaved = { ...saved, [op.arxivId]: [...lists] };
    if (!lists.size) delete nextSaved[op.arxivId];
    const saveId = op.saveId ?? op.id;
    const mine = recent.find((item) => item.saveId === saveId);
    let nextRecent = recent;
    if (mine) nextRecent = recordRecent(recent, { ...mine, listId: op.listId, state: outcome.state === 'removed' ? 'undone' : outcome.state, error: outcome.error ?? null });
    else if (outcome.state === 'failed') nextRecent = recordRecent(recent, { saveId, arxivId: op.arxivId, listId: op.listId, at: op.createdAt, state: 'failed', error: outcome.error });
    await ctx.local.set({ queue: rest, saved: nextSaved, recent: nextRecent });
    await updateBadge(ctx, rest);
  });
}

async function resolveListId(ctx, op) {
  if (op.listId !== null && op.listId !== undefined) return op.listId;
  const { defaultListId, account } = await ctx.local.get('defaultListId', 'account');
  if (defaultListId !== null) return defaultListId;
  if (account?.defaultList !== null && account?.defaultList !== undefined) return account.defaultList;
  const me = await ctx.api.me();
  await ctx.local.set({ account: me, authState: 'ok' });
  return me.defaultList;
}

async function deliver(ctx, op) {
  const listId = await resolveListId(ctx, op);
  const resolved = { ...op, listId };
  if (op.kind === 'add') {
    await ctx.api.addItem(listId, op.arxivId, op.note ?? '');
    return { op: resolved, state: 'saved' };
  }
  try {
    await ctx.api.removeItem(listId, op.arxivId);
  } catch (error) {
    if (error.kind !== 'client' || error.status !== 404) throw error;
  }
  return { op: resolved, state: 'removed' };
}

async function scheduleRetry(ctx, error) {
  const { retryCount } = await ctx.local.get('retryCount');
  const count = retryCount + 1;
  const delay = Math.max(backoffMinutes(count), (error.retryAfter || 0) / 60);
  const changes = { retryCount: count, lastError: errorInfo(error, ctx.now()) };
  if (error.kind === 'auth') changes.authState = 'expired';
  await ctx.local.set(changes);
  await ctx.chrome.alarms.create(RETRY_ALARM, { delayInMinutes: delay });
}

// Delivers queued ops oldest first until the queue is empty or the server fails for a passing
// reason. Returns what is left.
export async function flushQueue(ctx) {
  return withLock(ctx, 'flush', async () => {
    for (;;) {
      const { queue } = await ctx.local.get('queue');
      if (!queue.length) {
        await ctx.chrome.alarms.clear(RETRY_ALARM);
        await ctx.local.set({ retryCount: 0 });
        return 0;
      }
      const op = queue[0];
      try {
        const done = await deliver(ctx, op);
        await settle(ctx, done.op, { state: done.state });
        await ctx.local.set({ retryCount: 0, lastError: null });
      } catch (error) {
        if (error?.retryable) {
          await scheduleRetry(ctx, error);
          return queue.length;
        }
        const info = errorInfo(error, ctx.now());
        await ctx.local.set({ lastError: info });
        await settle(ctx, op, { state: 'failed', error: info.detail });
      }
    }
  });
}
