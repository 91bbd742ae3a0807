// arXiv ids as they appear in arxiv.org URLs and link text (ARXIV_PAGES.md section 1).
// Classic script: shares the Paperscope namespace with the other content scripts.
(() => {
  const PS = (globalThis.Paperscope ??= {});
  if (PS.ids) return;

  const NEW_STYLE = /^(\d{4}\.\d{4,5})(?:v(\d+))?$/;
  const OLD_STYLE = /^([a-z]+(?:-[a-z]+)*)(?:\.[A-Z]{2})?\/(\d{7})(?:v(\d+))?$/;

  // "arXiv:2101.10016v3", "hep-th/9901001", "math.AG/0202001v2" -> {id, version}; null otherwise.
  function parse(raw) {
    let text = String(raw ?? '').trim().replace(/^arxiv:/i, '');
    text = text.replace(/%2F/gi, '/');
    const fresh = NEW_STYLE.exec(text);
    if (fresh) return { id: fresh[1], version: fresh[2] ? Number(fresh[2]) : null };
    const old = OLD_STYLE.exec(text);
    if (old) return { id: `${old[1]}/${old[2]}`, version: old[3] ? Number(old[3]) : null };
    return null;
  }

  // "/abs/hep-th/9901001v2", "/html/2403.10561v1/" -> {id, version}. Old-style ids keep their slash.
  function fromPath(pathname) {
    const rest = String(pathname ?? '').replace(/^\/(abs|html|pdf)\//, '');
    const parts = rest.split('/').map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
    return parse(parts[0]) ?? parse(`${parts[0]}/${parts[1] ?? ''}`);
  }

  // The two forms a listing prints 2,000 times ("/abs/2501.00001", "https://arxiv.org/abs/...")
  // are read without building a URL (new URL() for every link was a third of finding the
  // entries); anything else (dot segments, queries, escapes, other hosts) goes through URL.
  const PLAIN_ABS = /^(?:https:\/\/arxiv\.org)?\/abs\/(?!.*\.\.)([\w.\-/]+)$/;
  const onArxiv = (hostname) => /(^|\.)arxiv\.org$/.test(hostname);
  const baseIsArxiv = new Map();

  function plainAbs(href, base) {
    const plain = PLAIN_ABS.exec(href);
    if (!plain) return undefined;
    if (href.startsWith('/')) {
      if (!baseIsArxiv.has(base)) baseIsArxiv.set(base, URL.canParse(base) && onArxiv(new URL(base).hostname));
      if (!baseIsArxiv.get(base)) return null;
    }
    const fresh = NEW_STYLE.exec(plain[1]); // the usual case, read at once
    return fresh ? { id: fresh[1], version: fresh[2] ? Number(fresh[2]) : null } : fromPath(`/abs/${plain[1]}`);
  }

  // Any link to an abstract page, relative or absolute, on arxiv.org.
  function fromHref(href, base = 'https://arxiv.org/') {
    const quick = typeof href === 'string' ? plainAbs(href, base) : undefined;
    if (quick !== undefined) return quick;
    let url;
    try {
      url = new URL(href, base);
    } catch {
      return null;
    }
    if (!onArxiv(url.hostname) || !url.pathname.startsWith('/abs/')) return null;
    return fromPath(url.pathname);
  }

  PS.ids = { parse, fromPath, fromHref };
})();
