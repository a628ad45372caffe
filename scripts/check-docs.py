#!/usr/bin/env python3
"""Checks that the project's documents still describe the project, in the test command so a
document cannot drift (or be cut short by an edit) without a failing build:

- docs/security.md: every test it cites as `path::name` (or `::name`, same file as the previous
  citation in that row) exists as a function of that name in that file. A control whose proof
  was renamed or deleted fails here instead of silently citing nothing.
- README.md and every document under docs/ and bench/: every repository path they name (in
  backticks, or as a link) exists.
- The README keeps the sections the team's process asks of it, and every entry point a person
  runs by hand (scripts/*, bench/*.sh) and every document under docs/ is named in the README or
  in bench/README.md, so a reader can find it."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SECURITY = ROOT / "docs" / "security.md"
CITATION = re.compile(r"`([^`\s]*::[A-Za-z0-9_:]+)`")
NAMED_PATH = re.compile(
    r"`([A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-/]*\.(?:rs|sh|md|toml|json|ts|tsx|mjs|py|ya?ml|proto|sql|txt))`"
)
LINK = re.compile(r"\]\(([^)#\s:]+)[)#]")
# The sections every README here gives (the two commands, the architecture with the reasons
# for departing from DESIGN.md, the libraries chosen and why, the tests).
SECTIONS = (
    "## Two commands",
    "## Architecture",
    "### Libraries chosen",
    "## Configuration reference",
    "## Tests",
)
# Paths a document names that are not in the repository, on purpose.
NOT_COMMITTED = {"config/base.toml": "an operator's optional overrides, absent by default"}


def security_citations(problems: list[str]) -> int:
    checked = 0
    for number, line in enumerate(SECURITY.read_text(encoding="utf-8").splitlines(), start=1):
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
    return checked


def named_paths(problems: list[str]) -> int:
    documents = [
        README,
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "bench").glob("*.md")),
    ]
    checked = 0
    for document in documents:
        for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), start=1):
            for path in NAMED_PATH.findall(line) + LINK.findall(line):
                if path.startswith("/") or path in NOT_COMMITTED:
                    continue  # a route or a path inside the container image
                checked += 1
                if not ((ROOT / path).exists() or (document.parent / path).exists()):
                    problems.append(f"{document.relative_to(ROOT)}:{number}: {path} does not exist")
    return checked


def readme_coverage(problems: list[str]) -> None:
    readme = README.read_text(encoding="utf-8")
    headings = {line.strip() for line in readme.splitlines() if line.startswith("#")}
    for section in SECTIONS:
        if not any(h == section or h.startswith((section + " ", section + ":")) for h in headings):
            problems.append(f"README.md: no section {section!r}")
    described = readme + (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    entry_points = [
        *(p for p in sorted((ROOT / "scripts").iterdir()) if p.is_file()),
        *sorted((ROOT / "bench").glob("*.sh")),
        *sorted((ROOT / "docs").iterdir()),
    ]
    for path in entry_points:
        name = str(path.relative_to(ROOT))
        if name not in described:
            problems.append(f"{name} is named neither in README.md nor in bench/README.md")


def main() -> int:
    problems: list[str] = []
    cited = security_citations(problems)
    paths = named_paths(problems)
    readme_coverage(problems)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"docs: {cited} cited tests and {paths} named paths checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
