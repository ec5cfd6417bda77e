#!/usr/bin/env python3
"""Compares the test times of two sets of Maven logs, over the test classes every log has.

Usage: compare-test-times.py OLD.log[,OLD2.log...] NEW.log[,NEW2.log...]

Each log is the output of e.g. `./mvnw -o -B -pl server -am test` in a checkout. A class is
matched by its simple name (a test that moved package still counts); the sums are of surefire's
"Time elapsed" per class, and the ratio is of the medians of the sums.
"""
import re
import statistics
import sys

LINE = re.compile(r"Tests run: (\d+).*Time elapsed: ([\d.,]+) s.* in (\S+)")


def classes(path):
    found = {}
    with open(path, errors="replace") as log:
        for line in log:
            m = LINE.search(line)
            if m:
                found[m.group(3).split(".")[-1]] = (float(m.group(2).replace(",", "")), int(m.group(1)))
    return found


def main():
    olds = [classes(p) for p in sys.argv[1].split(",")]
    news = [classes(p) for p in sys.argv[2].split(",")]
    common = set.intersection(*[set(c) for c in olds + news])
    old_sums = [round(sum(c[k][0] for k in common), 1) for c in olds]
    new_sums = [round(sum(c[k][0] for k in common), 1) for c in news]
    print(f"classes in every log: {len(common)}")
    print(f"tests in them: old {sum(olds[0][k][1] for k in common)}, new {sum(news[0][k][1] for k in common)}")
    print(f"sums of their times (s): old {old_sums}, new {new_sums}")
    print(f"ratio of medians: {statistics.median(new_sums) / statistics.median(old_sums):.2f}x")


if __name__ == "__main__":
    main()
