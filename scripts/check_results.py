#!/usr/bin/env python3
"""Keeps docs/results/ curated: every file there is cited, every cited file is there.

Why: docs/results/<gpu>/ holds the runs the pages, the notes, the README and the tests quote
(one current run per op and chapter per card, and the evidence the notes name). A run nobody
cites is noise a learner has to wade through; a citation whose file is gone is a broken page.
git keeps every superseded run, so removing one loses nothing.

Usage:
    python3 scripts/check_results.py            check; exit 1 with a list of problems
    python3 scripts/check_results.py --index    also rewrite docs/results/README.md (the index)
    python3 scripts/check_results.py --unused   print the files nobody cites, one per line

What counts as a citation (in tracked text files outside docs/results/, and in the per-card
README.md files, which describe their folder's files):
  * a results marker of scripts/results_tables.py: <!-- table|text|meta: FILE ... --> names FILE
    relative to docs/results/h200/ (the folder the pages are rendered from; `../h100/FILE`
    reaches the other card);
  * a path docs/results/<gpu>/NAME, or <gpu>/NAME where <gpu> is a folder under docs/results;
  * a bare file name NAME (in backquotes or not) equal to the name of a file under
    docs/results/: it cites that name in every card's folder;
  * brace lists expand: `gemv-ladder.{csv,txt}` names both files.
The per-card README.md files and docs/results/README.md are the index, not citations of
themselves; the limit on the number of files is MAX_FILES.

The lab notebook (docs/notes/) remembers experiments whose runs were superseded: a file it
names may be gone from the tree if git keeps it at ARCHIVE_COMMIT, the last commit that held
every earlier run (`git show ARCHIVE_COMMIT:docs/results/<card>/<file>` prints it). Where that
commit is not in the clone (a shallow clone), such citations are not checked.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results")
MAX_FILES = 200
ARCHIVE_COMMIT = "f1df966"
TEXT_EXT = (".md", ".cpp", ".hpp", ".cu", ".cuh", ".h", ".py", ".sh", ".txt", ".cmake", ".in", ".json")
MARKER_RE = re.compile(r"<!--\s*(?:table|text|meta)\s*:\s*([^|>]+?)\s*(?:\||-->)")
BRACE_RE = re.compile(r"([A-Za-z0-9_.\-/]*)\{([A-Za-z0-9_.,\-]+)\}([A-Za-z0-9_.\-]*)")
NAME_RE = re.compile(r"[A-Za-z0-9_.\-/*]+")


def results_files():
    """Every file under docs/results/, relative to it (e.g. 'h200/gemv-ladder.csv')."""
    out = []
    for d, _, files in os.walk(RESULTS):
        for f in files:
            out.append(os.path.relpath(os.path.join(d, f), RESULTS))
    return sorted(out)


def tracked_text_files():
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        files = listed.split()
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, f), ROOT) for d, _, fs in os.walk(ROOT) for f in fs]
    keep = []
    for f in files:
        if not f.endswith(TEXT_EXT):
            continue
        if f.startswith("docs/results/"):
            # Only the per-card READMEs speak about their folder; the top index is generated.
            if not re.fullmatch(r"docs/results/[^/]+/README\.md", f):
                continue
        if os.path.isfile(os.path.join(ROOT, f)):
            keep.append(f)
    return keep


def archived_files():
    """The results files git keeps at ARCHIVE_COMMIT (relative to docs/results), or None."""
    try:
        out = subprocess.run(["git", "ls-tree", "-r", "--name-only", ARCHIVE_COMMIT, "docs/results/"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return {p[len("docs/results/"):] for p in out.split()}


def expand_braces(text):
    """'a-{x,y}.csv' -> 'a-x.csv a-y.csv' (one level, repeated until none is left)."""
    for _ in range(4):
        new = BRACE_RE.sub(lambda m: " ".join(m.group(1) + p + m.group(3) for p in m.group(2).split(",")), text)
        if new == text:
            break
        text = new
    return text


def citations(existing):
    """{results path: [citing file, ...]} for existing and missing files alike."""
    cards = sorted({p.split("/")[0] for p in existing if "/" in p})
    by_name = {}
    for p in existing:
        by_name.setdefault(os.path.basename(p), []).append(p)
    cited = {}
    existing_set = set(existing)

    def cite(path, source, strict=True):
        path = os.path.normpath(path)
        if not strict and path not in existing_set:
            return
        if path in existing_set or "." in os.path.basename(path).strip("*"):
            if "*" not in path:
                cited.setdefault(path, []).append(source)
                return
        # A stem or a glob ('gemm-probe-3d1be4b-*', 'gemm-order-'): every file it names.
        pattern = re.escape(path).replace(r"\*", ".*")
        for p in existing:
            if re.match(pattern, p):
                cited.setdefault(p, []).append(source)

    for src in tracked_text_files():
        with open(os.path.join(ROOT, src), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        own_card = None
        m = re.fullmatch(r"docs/results/([^/]+)/README\.md", src)
        if m:
            own_card = m.group(1)
        for mk in (MARKER_RE.finditer(text) if src.endswith(".md") else ()):
            name = mk.group(1).strip()
            cite(os.path.join(own_card or "h200", name), src)
        for token in NAME_RE.findall(expand_braces(text)):
            token = token.strip(".")
            if "docs/results/" in token:
                rel = token.split("docs/results/", 1)[1]
                if "/" in rel and rel.split("/")[0] in cards and not rel.endswith("/"):
                    cite(rel, src)
                continue
            head = token.split("/")[0]
            if "/" in token and head in cards:
                cite(token, src, strict=False)
                continue
            base = os.path.basename(token)
            if "*" in base and "/" not in token:  # a bare glob ('cg-ladder.*'): in its own card, else any
                if base.startswith("*") or len(base.replace("*", "")) < 5:
                    continue  # '*', 'T*', '*p': C++ and prose, not a file name (would cite every file)
                pattern = re.compile(re.escape(base).replace(r"\*", ".*") + "$")
                for p in existing:
                    if pattern.match(os.path.basename(p)) and (not own_card or p.startswith(own_card + "/")):
                        cited.setdefault(p, []).append(src)
                continue
            if base in by_name and base != "README.md":
                targets = by_name[base]
                if own_card:
                    targets = [t for t in targets if t.startswith(own_card + "/")] or targets
                for t in targets:
                    cite(t, src)
    return cited


def write_index(existing, cited):
    lines = ["# Results (docs/results)", "",
             "The GPU runs the workbook's pages, notes, README and tests cite, exactly as the runs wrote",
             "them (each CSV row names the card, clocks, driver, CUDA version, commit and date). One",
             "folder per card; each folder's README.md says what each file is. This index is written by",
             "`python3 scripts/check_results.py --index`; the cpu test `results files cited` fails when a",
             "cited file is missing or a file here is cited nowhere. Superseded runs are removed (git keeps",
             "them: `git log --all -- docs/results/<card>/<file>`).", "",
             "| file | cited by |", "|---|---|"]
    for p in existing:
        if os.path.basename(p) == "README.md":
            continue
        srcs = sorted(set(cited.get(p, [])))
        shown = ", ".join(f"`{s}`" for s in srcs[:3]) + (f" and {len(srcs) - 3} more" if len(srcs) > 3 else "")
        lines.append(f"| `{p}` | {shown} |")
    with open(os.path.join(RESULTS, "README.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def main(argv):
    existing = [p for p in results_files() if p != "README.md"]
    cited = citations(existing)
    if "--index" in argv:
        write_index(existing, cited)
    data = [p for p in existing if os.path.basename(p) != "README.md"]
    unused = [p for p in data if p not in cited]
    if "--unused" in argv:
        print("\n".join(unused))
        return 0
    missing = sorted(p for p in cited if p not in existing and not p.endswith("README.md"))
    archive = archived_files()
    problems = []
    for p in missing:
        if all(src.startswith("docs/notes/") for src in cited[p]):
            if archive is None or p in archive:
                continue  # the notebook's history: kept by git at ARCHIVE_COMMIT
            problems.append(f"cited but neither in the tree nor at {ARCHIVE_COMMIT}: docs/results/{p} "
                            f"(cited by {', '.join(sorted(set(cited[p]))[:3])})")
            continue
        problems.append(f"cited but missing: docs/results/{p} (cited by {', '.join(sorted(set(cited[p]))[:3])})")
    for p in unused:
        problems.append(f"cited nowhere: docs/results/{p} (cite it from a page, note, README or test, or remove it)")
    if len(data) > MAX_FILES:
        problems.append(f"docs/results holds {len(data)} files; at most {MAX_FILES} (remove superseded runs)")
    for card in sorted({p.split('/')[0] for p in data}):
        if not os.path.isfile(os.path.join(RESULTS, card, "README.md")):
            problems.append(f"docs/results/{card}/README.md is missing (each card's folder says what its files are)")
    if problems:
        print("\n".join(problems))
        print(f"check_results: {len(problems)} problem(s); {len(data)} files under docs/results")
        return 1
    print(f"check_results: {len(data)} files under docs/results, every one cited, every citation present")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
