#!/usr/bin/env python3
"""Renders the result markers of the workbook's markdown pages from the files of a real GPU run.

Why: numbers in the docs are never typed by hand. A README holds markers; this script replaces
what lies between each opening marker and its closing marker with content generated from the
CSV/text files a GPU run wrote (docs/results/<gpu>/), so re-running it after a new run updates
every table, excerpt and metadata line at once.

Usage:  python3 scripts/results_tables.py <results dir> <markdown files...>

Markers (standard library only; the files are rewritten in place, only when they change):

    <!-- table: FILE.csv | cols: a,b,c | where: col=v,col2=v1/v2 -->
    (generated markdown table)
    <!-- /table -->

    <!-- text: FILE.txt | from: START | to: STOP -->
    (generated fenced code block: from the first line containing START up to, not including,
     the first later line containing STOP; without from/to: from the first line / to the end)
    <!-- /text -->

    <!-- meta: FILE.csv -->Measured on <gpu> (<sm_count> SMs), CUDA <cuda>, commit <commit>, <date><!-- /meta -->
    (inline, anywhere in a line; or as a block: opening and closing markers on their own lines)

* `cols:` picks and orders columns; default: every column except the metadata columns
  (gpu, sm_count, sm_clock_mhz, mem_clock_mhz, driver, cuda, commit, date). A CSV may repeat a
  header (e.g. several "GB/s" columns): a name listed k times in `cols:` takes the 1st, 2nd, ...
  occurrence in turn; `name[k]` names the k-th occurrence (1-based) explicitly.
* `where:` keeps the rows whose cells equal the values exactly; comma-separated `col=value`
  pairs, all must hold; `col=a/b` means a or b.
* Cells are copied verbatim; only characters that would break a markdown table or be read as a
  Doxygen command are backslash-escaped (`|`, `\\`, and `@ # %` before a word character; `<`, `>`
  and `&` become entities), so the rendered page shows the CSV text exactly.
* Block markers must start their line (up to 3 spaces of indent); markers inside fenced code
  blocks or inline `code` are left alone, so pages can document the convention itself.

Errors (missing file, missing column, unknown key, empty selection, unclosed marker, ...) print
`results_tables.py: <file>:<line>: <marker>: <reason>` and exit with status 2; no file is written
unless every file renders without error. Running the script twice changes nothing the second time.
"""
import csv
import os
import re
import sys

META_COLS = ["gpu", "sm_count", "sm_clock_mhz", "mem_clock_mhz", "driver", "cuda", "commit", "date"]
KINDS = ("table", "text", "meta")
KEYS = {"table": {"cols", "where"}, "text": {"from", "to"}, "meta": set()}

OPEN_RE = re.compile(r"<!--\s*(table|text|meta)\s*:(.*?)-->")
CLOSE_RE = {k: re.compile(r"<!--\s*/" + k + r"\s*-->") for k in KINDS}
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
NUMERIC_RE = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*[%x]?$")


class MarkerError(Exception):
    """An error tied to one marker of one file; str() is the full message."""

    def __init__(self, path, lineno, marker, reason):
        super().__init__(f"{path}:{lineno}: {marker.strip()}: {reason}")


def parse_spec(body, kind, err):
    """Splits 'FILE | key: value | ...' into (file, {key: value}); rejects unknown/duplicate keys."""
    parts = [p.strip() for p in body.split("|")]
    name = parts[0]
    if not name:
        raise err("no file named")
    opts = {}
    for p in parts[1:]:
        if not p:
            continue
        key, sep, value = p.partition(":")
        key = key.strip()
        if not sep or key not in KEYS[kind]:
            raise err(f"unknown option '{p}' for a {kind} marker "
                      f"(allowed: {', '.join(sorted(KEYS[kind])) or 'none'})")
        if key in opts:
            raise err(f"option '{key}' given twice")
        opts[key] = value.strip()
    return name, opts


def read_csv(results, name, err):
    path = os.path.join(results, name)
    if not os.path.isfile(path):
        raise err(f"CSV file not found: {path}")
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise err(f"CSV file is empty: {path}")
    header, data = rows[0], [r for r in rows[1:] if r]
    for i, r in enumerate(data):
        if len(r) != len(header):
            raise err(f"{path}: row {i + 2} has {len(r)} cells, the header has {len(header)}")
    return path, header, data


def column_index(header, name, path, err, nth=None):
    """Index of column `name` (k-th occurrence when nth is given or name ends in [k])."""
    m = re.fullmatch(r"(.*?)\[(\d+)\]", name)
    if m and m.group(1) not in header or (m and name in header):
        m = None  # a literal header that happens to end in [k]
    if m:
        name, nth = m.group(1).strip(), int(m.group(2))
    hits = [i for i, h in enumerate(header) if h == name]
    if not hits:
        raise err(f"column '{name}' not in {path} (columns: {', '.join(header)})")
    k = nth or 1
    if k < 1 or k > len(hits):
        raise err(f"column '{name}' occurs {len(hits)} time(s) in {path}, occurrence {k} asked")
    return hits[k - 1]


def select_rows(header, data, where, path, err):
    if not where:
        return data
    conds = []
    for pair in where.split(","):
        pair = pair.strip()
        if not pair:
            continue
        col, sep, value = pair.partition("=")
        if not sep:
            raise err(f"where clause '{pair}' is not col=value")
        idx = column_index(header, col.strip(), path, err)
        value = value.strip()
        alts = {value} | {a.strip() for a in value.split("/")}
        conds.append((idx, alts))
    return [r for r in data if all(r[i] in alts for i, alts in conds)]


def escape_cell(s):
    s = s.replace("\\", "\\\\").replace("|", "\\|")
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = re.sub(r"([@#%])(?=\w)", r"\\\1", s)
    return s.replace("\n", " ")


def render_table(results, name, opts, err):
    path, header, data = read_csv(results, name, err)
    if "cols" in opts:
        names = [c.strip() for c in opts["cols"].split(",") if c.strip()]
        if not names:
            raise err("cols: lists no column")
        seen = {}
        idx = []
        for c in names:
            seen[c] = seen.get(c, 0) + 1
            idx.append(column_index(header, c, path, err, nth=seen[c]))
    else:
        idx = [i for i, h in enumerate(header) if h not in META_COLS]
        if not idx:
            raise err(f"{path} has only metadata columns")
    rows = select_rows(header, data, opts.get("where", ""), path, err)
    if not rows:
        raise err(f"empty selection: no row of {path} matches '{opts.get('where', '')}'")
    heads = [escape_cell(header[i]) for i in idx]
    align = []
    for i in idx:
        cells = [r[i].strip() for r in rows if r[i].strip() not in ("", "-")]
        align.append("---:" if cells and all(NUMERIC_RE.match(c) for c in cells) else "---")
    out = ["| " + " | ".join(heads) + " |", "|" + "|".join(align) + "|"]
    for r in rows:
        out.append("| " + " | ".join(escape_cell(r[i]) for i in idx) + " |")
    return out


def render_text(results, name, opts, err):
    path = os.path.join(results, name)
    if not os.path.isfile(path):
        raise err(f"text file not found: {path}")
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = 0
    if opts.get("from"):
        hits = [i for i, line in enumerate(lines) if opts["from"] in line]
        if not hits:
            raise err(f"no line of {path} contains from '{opts['from']}'")
        start = hits[0]
    stop = len(lines)
    if opts.get("to"):
        hits = [i for i in range(start + 1, len(lines)) if opts["to"] in lines[i]]
        if not hits:
            raise err(f"no line of {path} after line {start + 1} contains to '{opts['to']}'")
        stop = hits[0]
    sel = [line.rstrip() for line in lines[start:stop]]
    while sel and not sel[-1]:
        sel.pop()
    if not any(sel):
        raise err(f"empty selection: lines {start + 1}..{stop} of {path} are blank")
    longest = max([len(m) for line in sel for m in re.findall(r"`+", line)] + [0])
    fence = "`" * max(3, longest + 1)
    return [fence] + sel + [fence]


def render_meta(results, name, opts, err):
    path, header, data = read_csv(results, name, err)
    if not data:
        raise err(f"empty selection: {path} has no data row")
    row = data[0]
    cell = {c: row[column_index(header, c, path, err)] for c in ("gpu", "sm_count", "cuda", "commit", "date")}
    return (f"Measured on {cell['gpu']} ({cell['sm_count']} SMs), CUDA {cell['cuda']}, "
            f"commit {cell['commit']}, {cell['date']}")


def outside_code_span(line, pos):
    """True when position pos of line is not inside an inline `code` span."""
    return line[:pos].count("`") % 2 == 0


def render_file(path, results):
    """Returns the new text of markdown file `path`; raises MarkerError."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    out = []
    fence = None
    i = 0
    renderers = {"table": render_table, "text": render_text}
    while i < len(lines):
        line = lines[i]
        if fence:
            out.append(line)
            if re.match(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$", line):
                fence = None
            i += 1
            continue
        fm = FENCE_RE.match(line)
        if fm:
            fence = fm.group(1)
            out.append(line)
            i += 1
            continue
        lineno = i + 1
        block = OPEN_RE.match(line.lstrip(" ")) if len(line) - len(line.lstrip(" ")) <= 3 else None
        if block and block.group(1) != "meta" or (block and not CLOSE_RE["meta"].search(line, block.end())):
            kind, marker = block.group(1), block.group(0)

            def err(reason, _m=marker, _l=lineno):
                return MarkerError(path, _l, _m, reason)

            name, opts = parse_spec(block.group(2), kind, err)
            same = CLOSE_RE[kind].search(line, block.end() + (len(line) - len(line.lstrip(" "))))
            if same:  # closing marker on the opening line: split it onto its own line
                lines[i:i + 1] = [line[:same.start()], line[same.start():]]
                line = lines[i]
            j = i + 1
            while j < len(lines) and not CLOSE_RE[kind].match(lines[j].strip()):
                if OPEN_RE.match(lines[j].strip()) and not CLOSE_RE["meta"].search(lines[j]):
                    raise err(f"opening marker at line {j + 1} before the closing <!-- /{kind} -->")
                j += 1
            if j == len(lines):
                raise err(f"no closing <!-- /{kind} --> marker")
            if kind == "meta":
                body = [render_meta(results, name, opts, err)]
            else:
                body = [""] + renderers[kind](results, name, opts, err) + [""]
            out.append(line[: line.index(marker) + len(marker)])
            out.extend(body)
            out.append(lines[j])
            i = j + 1
            continue
        # inline meta markers (and stray block markers) anywhere in the line
        new, pos = [], 0
        for m in OPEN_RE.finditer(line):
            if m.start() < pos or not outside_code_span(line, m.start()):
                continue
            kind, marker = m.group(1), m.group(0)

            def err(reason, _m=marker, _l=lineno):
                return MarkerError(path, _l, _m, reason)

            if kind != "meta":
                raise err(f"a {kind} marker must start its line, its content is a block")
            close = CLOSE_RE["meta"].search(line, m.end())
            if not close:
                raise err("no closing <!-- /meta --> marker on the same line")
            name, opts = parse_spec(m.group(2), kind, err)
            new.append(line[pos:m.end()])
            new.append(render_meta(results, name, opts, err))
            pos = close.start()
        new.append(line[pos:])
        out.append("".join(new))
        i += 1
    return "\n".join(out)


def main(argv):
    if len(argv) < 3:
        print("usage: python3 scripts/results_tables.py <results dir> <markdown files...>", file=sys.stderr)
        return 2
    results, files = argv[1], argv[2:]
    if not os.path.isdir(results):
        print(f"results_tables.py: results dir not found: {results}", file=sys.stderr)
        return 2
    rendered = {}
    try:
        for path in files:
            if not os.path.isfile(path):
                print(f"results_tables.py: {path}: file not found", file=sys.stderr)
                return 2
            rendered[path] = render_file(path, results)
    except MarkerError as e:
        print(f"results_tables.py: {e}", file=sys.stderr)
        return 2
    changed = 0
    for path, new in rendered.items():
        with open(path, encoding="utf-8") as f:
            old = f.read()
        if new != old:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            changed += 1
            print(f"updated {path}")
    print(f"{changed} of {len(files)} file(s) changed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
