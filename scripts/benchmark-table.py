#!/usr/bin/env python3
"""Renders keychain-bench's JSON (--json FILE) as Markdown tables, one per keychain size.

    scripts/benchmark-table.py docs/benchmark-latest.json

Used for docs/performance.md, so the document's table is the JSON's figures, unedited.
"""
import json
import math
import sys


def number(value):
    if value is None or (isinstance(value, float) and not math.isfinite(value)) or isinstance(value, str):
        return "–"
    if value >= 100:
        return f"{value:,.0f}".replace(",", " ")
    return f"{value:.1f}"


def main(path):
    with open(path) as file:
        rows = json.load(file)
    sizes = sorted({row["items"] for row in rows})
    for size in sizes:
        print(f"#### {size:,} items".replace(",", " "))
        print()
        print("| operation | median µs | p99 µs | ops/s | floor | ratio | note |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for row in (r for r in rows if r["items"] == size):
            ratio = row.get("ratio")
            ratio_text = "" if ratio is None or isinstance(ratio, str) else f"**{ratio:.2f}**"
            floor = row.get("floorMedianMicroseconds")
            floor_text = "" if floor is None else number(floor)
            unit = row.get("note") if row.get("samples") == 1 else None
            if unit:
                median = f"{number(row['medianMicroseconds'])} {unit}"
                print(f"| {row['operation']} | {median} | | | {floor_text} | {ratio_text} | |")
            else:
                print(
                    f"| {row['operation']} | {number(row['medianMicroseconds'])} | {number(row['p99Microseconds'])} "
                    f"| {number(row['throughputPerSecond'])} | {floor_text} | {ratio_text} | {row.get('note') or ''} |")
        print()


if __name__ == "__main__":
    main(sys.argv[1])
