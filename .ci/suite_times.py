"""Seconds each suite (top folder of tests/) took in a pytest run, from its JUnit XML:
`.ci/run` prints them after the tests, so that what a suite adds to CI's time is read off
every run. The tests run on two workers, so the suites' minutes add up to about twice the
tests' wall time: read them as what each suite costs, not as when it ended.
Usage: python .ci/suite_times.py junit.xml"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict


def main(path: str) -> None:
    seconds: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for case in ET.parse(path).getroot().iter("testcase"):
        # classname is the module's dotted path: tests.<suite>.<module>[.<class>]
        parts = (case.get("classname") or "").split(".")
        suite = parts[1] if len(parts) > 2 and parts[0] == "tests" else parts[0]
        seconds[suite] += float(case.get("time") or 0)
        counts[suite] += 1
    total = sum(seconds.values())
    print(f"{'suite':<14} {'tests':>6} {'minutes':>8} {'share':>6}")
    for suite, spent in sorted(seconds.items(), key=lambda item: -item[1]):
        print(f"{suite:<14} {counts[suite]:>6} {spent / 60:>8.1f} {spent / total:>6.0%}")
    print(f"{'all':<14} {sum(counts.values()):>6} {total / 60:>8.1f}")


if __name__ == "__main__":
    main(sys.argv[1])
