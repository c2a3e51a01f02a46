"""What a part-of-speech member costs against a segmentation member
(docs/benchmarks.md, "Part-of-speech members").

A POS member (docs/method.md §14) tags each gold word of a sentence with
one of the corpus's tags (44 in the embedded People's Daily training
split) over the word templates W1-W3; a segmentation member tags each
character with one of 4 (BMES) over the character templates F1-F3.  There
are about 1.6 times fewer words than characters, but 11 times more labels.
This script trains, side by side in one invocation, the same member (same
template, same ratio, the same training sentences of the embedded corpus,
the same CRF recipe) once per task, each in a fresh process so that its CPU
time and peak memory are its own, and prints the seconds of each step, the
process's CPU-seconds (user + system, reading the corpus included), its
peak resident memory and the ratios.

    python benchmarks/bench_pos_member.py --template F1 --ratio 0.1
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

_WORKER = r"""
import json, resource, sys, tempfile, time
from committee import tasks
from committee.learners import crf, members, trainers
from committee.corpus import read_embedded

task, template, ratio, preset = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
kind = tasks.get(task)
t0 = time.perf_counter()
train = kind.prepare(read_embedded("train"))
test = kind.prepare(read_embedded("test"))
sentences = kind.train_sentences(train, kind.gold(train))
read_s = time.perf_counter() - t0
m = members.draw_member(0, len(sentences), (template,), (ratio,), seed=2016)
sample = [sentences[i] for i in members.member_sample(m, len(sentences))]
test_items = [kind.items(s) for s in test.words]
recipe = crf.PRESETS[preset]
t0 = time.perf_counter()
pred, t = trainers.train_and_tag(
    trainers.Recipe(trainers.get(), recipe["algorithm"], dict(recipe["params"])), kind, sample,
    template, test_items, tempfile.mkdtemp())
total = time.perf_counter() - t0
gold = kind.gold(test)
_, p, ok, _ = tasks.match(kind, [len("".join(x)) for x in test_items], gold, pred)
labels = sorted({x for _, tags in (kind.example(s) for s in sample) for x in tags})
items = sum(len(kind.example(s)[0]) for s in sample)
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"task": task, "labels": len(labels), "sentences": len(sample),
                  "items": items, "attributes_s": t["attributes_s"], "train_s": t["train_s"],
                  "tag_s": t["tag_s"], "total_s": total, "read_s": read_s,
                  "cpu_s": usage.ru_utime + usage.ru_stime,
                  "f1": 2 * int(ok.sum()) / (ok.size + len(p.starts)),
                  "peak_rss_mb": usage.ru_maxrss / 1024}))
"""


def run(task: str, template: str, ratio: float, preset: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _WORKER, task, template, str(ratio), preset],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--template", default="F1", choices=["F1", "F2", "F3"])
    ap.add_argument("--ratio", type=float, default=0.1)
    ap.add_argument("--preset", default="paper")
    args = ap.parse_args()
    started = time.perf_counter()
    seg = run("segmentation", args.template, args.ratio, args.preset)
    pos = run("pos", args.template, args.ratio, args.preset)
    print(f"one member: template {args.template}, ratio {args.ratio}, preset {args.preset}, "
          f"embedded People's Daily (seconds; memory in MB)")
    print(f"{'':24}{'segmentation':>14}{'pos':>10}{'pos / seg':>11}")
    rows = [("labels", "labels", "{:.0f}"), ("training sentences", "sentences", "{:.0f}"),
            ("items (chars; words)", "items", "{:.0f}"),
            ("attributes (s)", "attributes_s", "{:.1f}"), ("training (s)", "train_s", "{:.1f}"),
            ("tagging (s)", "tag_s", "{:.1f}"), ("member total (s)", "total_s", "{:.1f}"),
            ("process CPU (s)", "cpu_s", "{:.1f}"),
            ("peak memory (MB)", "peak_rss_mb", "{:.0f}"), ("f1 on the test set", "f1", "{:.4f}")]
    for label, key, fmt in rows:
        a, b = seg[key], pos[key]
        ratio = f"{b / a:.2f}" if a else "-"
        print(f"{label:24}{fmt.format(a):>14}{fmt.format(b):>10}{ratio:>11}")
    print(f"(measured in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
