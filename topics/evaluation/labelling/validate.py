"""Check a label file against its pool: python3 validate.py POOL LABELS
Every line: {"id", "topics", "acceptable", "note"}; ids from the pool, each once; slugs from the taxonomy."""
import json, sys
slugs = {line.split(" | ")[0].strip() for line in open("/work/labelling/taxonomy.txt") if " | " in line}
pool_ids = [json.loads(l)["id"] for l in open(sys.argv[1]) if l.strip()]
seen, bad = set(), 0
for n, line in enumerate(open(sys.argv[2]), 1):
    if not line.strip():
        continue
    try:
        row = json.loads(line)
    except ValueError as e:
        print(f"line {n}: not JSON: {e}"); bad += 1; continue
    if row.get("id") not in pool_ids:
        print(f"line {n}: id {row.get('id')!r} is not in the pool"); bad += 1
    if row.get("id") in seen:
        print(f"line {n}: id {row['id']} labelled twice"); bad += 1
    seen.add(row.get("id"))
    for key in ("topics", "acceptable"):
        for s in row.get(key, []):
            if s not in slugs:
                print(f"line {n}: {key}: unknown slug {s!r}"); bad += 1
    if set(row.get("topics", [])) & set(row.get("acceptable", [])):
        print(f"line {n}: a slug is both clear and acceptable"); bad += 1
    if not row.get("note"):
        print(f"line {n}: no note"); bad += 1
done = [i for i in pool_ids if i in seen]
nxt = next((i for i in pool_ids if i not in seen), None)
print(f"{len(seen)} of {len(pool_ids)} pool papers labelled, {bad} problems; next unlabelled: {nxt}")
