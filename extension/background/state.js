// What the popup shows: connection, the queue, recent saves. Read-only.

export async function getState(ctx) {
  const s = await ctx.local.get('server', 'account', 'authState', 'lists', 'defaultListId', 'queue', 'recent', 'lastError', 'staySignedIn');
  const connection = !(await ctx.tokens.get()) ? 'not-connected' : s.authState === 'expired' ? 'expired' : 'connected';
  return {
    server: s.server,
    connection,
    username: s.account?.username ?? null,
    lists: s.lists.items,
    defaultList: s.defaultListId ?? s.account?.defaultList ?? null,
    queue: s.queue.map((op) => ({ kind: op.kind, arxivId: op.arxivId, listId: op.listId, createdAt: op.createdAt })),
    recent: s.recent.slice(0, 10),
    lastError: s.lastError,
    staySignedIn: s.staySignedIn,
  };
}
