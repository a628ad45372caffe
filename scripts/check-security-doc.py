#!/usr/bin/env python3
"""Checks docs/security.md: every test it cites as `path::name` (or `::name`, same file as the
previous citation in that row) exists as a function of that name in that file. A control whose proof was renamed or
deleted fails here instead of silently citing nothing."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "security.md"
CITATION = re.compile(r"`([^`\s]*::[A-Za-z0-9_:]+)`")


def main() -> int:
    problems = []
    checked = 0
    for number, line in enumerate(DOC.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.startswith("|"):
            continue
        current = None
        for citation in CITATION.findall(line):
            path, _, rest = citation.partition("::")
            name = rest.split("::")[-1]
            if path and "/" not in path:
                continue  # a module named in the prose (`platform::access`), not a test
            if path:
                current = path
            if current is None or current == "file":
                continue
            source = ROOT / current
            checked += 1
            if not source.is_file():
                problems.append(f"docs/security.md:{number}: {current} does not exist")
                continue
            if not re.search(rf"\bfn {re.escape(name)}\b", source.read_text(encoding="utf-8")):
                problems.append(f"docs/security.md:{number}: no fn {name} in {current}")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"docs/security.md: {checked} cited tests checked, {len(problems)} missing")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
