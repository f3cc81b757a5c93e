#!/usr/bin/env python3
"""Summarize an a2a-tck junit XML report.

Usage: summarize.py JUNIT_XML [--baseline FILE]

Prints passed/failed/skipped counts per requirement level (must, should,
may) and per transport (jsonrpc, http_json, agnostic, grpc), then the ids of
the failing tests with the first line of their assertion message.

Level and transport come from the ``tck_level`` / ``tck_transport``
properties written by the tck_junit_props plugin (run.sh loads it). Without
them every item is counted as level "unmarked" and transport "agnostic".

With ``--baseline FILE`` (one test id per line, ``#`` comments allowed) the
failures are split into expected and unexpected ones; the exit status is 1
when a test fails that is not in the baseline, else 0. Without a baseline
the exit status is 1 when any test failed.

Standard library only.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

LEVELS = ["must", "should", "may", "unmarked"]
TRANSPORTS = ["jsonrpc", "http_json", "agnostic", "grpc"]
OUTCOMES = ["passed", "failed", "skipped"]


def test_id(case: ET.Element) -> str:
    """Return a pytest-style node id: path/to/test_x.py::Class::name."""
    classname = case.get("classname", "")
    name = case.get("name", "")
    parts = classname.split(".")
    # Find the module part (test_*.py) in the dotted classname.
    for i in range(len(parts) - 1, -1, -1):
        if parts[i].startswith("test_"):
            path = "/".join(parts[: i + 1]) + ".py"
            rest = parts[i + 1 :]
            return "::".join([path, *rest, name])
    return f"{classname}::{name}"


def outcome(case: ET.Element) -> tuple[str, str]:
    """Return (outcome, first message line) for a testcase element."""
    for tag in ("failure", "error"):
        el = case.find(tag)
        if el is not None:
            msg = el.get("message") or (el.text or "")
            first = next((ln.strip() for ln in msg.splitlines() if ln.strip()), "")
            return "failed", first
    el = case.find("skipped")
    if el is not None:
        msg = (el.get("message") or "").strip()
        first = msg.splitlines()[0] if msg else ""
        # The kit reports SHOULD-level violations with pytest.xfail; junit
        # writes them as skips of type "pytest.xfail".
        if el.get("type") == "pytest.xfail":
            return "xfailed", first
        return "skipped", first
    return "passed", ""


def props(case: ET.Element) -> dict[str, str]:
    out = {}
    for p in case.iter("property"):
        out[p.get("name", "")] = p.get("value", "")
    return out


def load_baseline(path: str | None) -> set[str]:
    if not path:
        return set()
    ids = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                ids.add(line)
    return ids


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("junit_xml")
    ap.add_argument("--baseline", help="file of expected failing test ids")
    args = ap.parse_args(argv)

    root = ET.parse(args.junit_xml).getroot()
    cases = list(root.iter("testcase"))
    table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    totals: Counter = Counter()
    failures: list[tuple[str, str, str, str]] = []
    xfails: list[tuple[str, str, str, str]] = []
    for case in cases:
        p = props(case)
        level = p.get("tck_level", "unmarked")
        transport = p.get("tck_transport", "agnostic")
        res, msg = outcome(case)
        totals[res] += 1
        if res == "xfailed":
            xfails.append((test_id(case), level, transport, msg))
            res = "skipped"  # counted with the skips in the table, as pytest's junit does
        table[(level, transport)][res] += 1
        if res == "failed":
            failures.append((test_id(case), level, transport, msg))

    print(f"total: {totals['passed']} passed, {totals['failed']} failed, "
          f"{totals['skipped'] + totals['xfailed']} skipped ({totals['xfailed']} of them xfailed) "
          f"({len(cases)} items)")
    print()
    levels = [lv for lv in LEVELS if any(table[(lv, t)] for t in TRANSPORTS)]
    width = 16
    print("level    " + "".join(f"{t + ' P/F/S':>{width}}" for t in [*TRANSPORTS, "all"]))
    for lv in levels:
        row = f"{lv:<9}"
        all_c: Counter = Counter()
        for t in TRANSPORTS:
            c = table[(lv, t)]
            all_c.update(c)
            row += f"{c['passed']:>{width - 8}}/{c['failed']:>3}/{c['skipped']:>3}"
        row += f"{all_c['passed']:>{width - 8}}/{all_c['failed']:>3}/{all_c['skipped']:>3}"
        print(row)

    baseline = load_baseline(args.baseline)
    unexpected = [f for f in failures if f[0] not in baseline]
    expected = [f for f in failures if f[0] in baseline]
    print()
    if args.baseline:
        print(f"failures: {len(failures)} ({len(expected)} in baseline, {len(unexpected)} unexpected)")
        groups = [("unexpected", unexpected), ("expected (baseline)", expected)]
    else:
        print(f"failures: {len(failures)}")
        groups = [("failed", failures)]
    for title, items in groups:
        if not items:
            continue
        print(f"-- {title}")
        for tid, lv, t, msg in sorted(items):
            print(f"FAIL [{lv}/{t}] {tid}")
            if msg:
                print(f"     {msg[:300]}")
    if xfails:
        print(f"-- xfailed (the kit's way of reporting a violated SHOULD; not gated): {len(xfails)}")
        for tid, lv, t, msg in sorted(xfails):
            print(f"XFAIL [{lv}/{t}] {tid}")
            if msg:
                print(f"     {msg[:300]}")
    if args.baseline:
        fixed = sorted(baseline - {f[0] for f in failures})
        if fixed:
            print("-- in baseline but not failing now")
            for tid in fixed:
                print(f"     {tid}")
        return 1 if unexpected else 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
