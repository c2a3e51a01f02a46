"""The report's "Suspicious gold" section: the head of ``check-gold.tsv``
(written by ``committee check-gold``, docs/method.md §15) with each span in
its sentence, and every ranked system's f1 and fb without the list's
first rows (as many as ``committee score --check-gold`` leaves out).

It is made when the run directory holds a ``check-gold.tsv`` that
``committee check-gold`` wrote (its checksum checked); a run without one
gets a note saying how to add it.  Files: ``report/check-gold.csv`` (the
rows shown) and ``report/check-gold-systems.csv``.
"""

from __future__ import annotations

import pandas as pd

from committee.pipeline import layout
from committee.pipeline import runfiles
from committee.report.output import markdown_table, pct, write_csv

#: Rows of ``check-gold.tsv`` the section shows.
SHOWN = 20
TITLE = "Suspicious gold"


def _without(ctx, mask) -> list[dict]:
    """Each ranked system's f1 and fb on the whole test set and without the
    ``mask`` characters' units (:meth:`committee.metrics.Collector.leaving_out`)."""
    from committee import scoring

    data = ctx.data
    left = data.collector().leaving_out(mask)
    rows = []
    for s in ctx.ranked:
        pred = data.task_record.as_corpus(s.name, s.words, data.test.lines, s.tags)
        part = scoring.Scores.from_stats(left.collect(pred, check=False), s.scores.signature,
                                         name=s.name, undefined="ignore")
        rows.append({"system": s.name, "kind": s.kind, "f1": s.scores["f1"],
                     "f1_left_out": part["f1"], "fb": s.scores["fb"],
                     "fb_left_out": part["fb"]})
    return rows


def section(ctx) -> str | None:
    """The section, or None (with a note) when the run has no list."""
    from committee.scoring import checkgold

    p = layout.paths(ctx.run_dir)
    for name in ("check-gold.csv", "check-gold-systems.csv"):  # an earlier build's
        (ctx.out_dir / name).unlink(missing_ok=True)
    if not p.check_gold.is_file():
        ctx.notes.append(f"{TITLE}: run `committee check-gold {ctx.run_dir}` before the report "
                         "for the gold spans most likely to be annotation errors "
                         "(docs/method.md §15).")
        return None
    rows, summary = checkgold.read(ctx.run_dir)
    mask, n = checkgold.left_out(rows, summary, ctx.data.test.n_chars())
    shown = pd.DataFrame([{k: r[k] for k in checkgold.COLUMNS} for r in rows[:SHOWN]])
    if not shown.empty:
        write_csv(ctx.out_dir / "check-gold.csv", shown)
        ctx.check_gold_files.add("check-gold.csv")
    units = summary.get("units", ctx.data.units_name)
    text = [f"## {TITLE}", "",
            f"`committee check-gold` lists {len(rows):,} spans of the test {units} where the "
            f"members or the training corpus read the gold otherwise (`check-gold.tsv`), the "
            "likeliest annotation errors first, by their evidence: the model's probability "
            "for errors like those injected where it was fitted, not a probability of a real "
            "error (docs/method.md §15; on a hand-judged sample of the embedded People's Daily "
            "corpus most of the first 50 rows were errors, docs/benchmarks.md). The first "
            f"{min(SHOWN, len(rows))}:", ""]
    body = [[str(i + 1), r["gold"], r["proposed"], f"{r['evidence']:.3f}", r["context"]]
            for i, r in enumerate(rows[:SHOWN])]
    text += [markdown_table(["#", "gold", "proposed", "evidence", "sentence"], body), ""]
    if ctx.ranked and n:
        systems = _without(ctx, mask)
        write_csv(ctx.out_dir / "check-gold-systems.csv", pd.DataFrame(systems))
        ctx.check_gold_files.add("check-gold-systems.csv")
        body = [[r["system"], pct(r["f1"]), pct(r["f1_left_out"]), pct(r["fb"]),
                 pct(r["fb_left_out"])] for r in systems]
        flips = [k for k, changed in checkgold.ranking_changes(systems).items() if changed]
        text += [f"Without the {n:,} most suspicious spans ({int(mask.sum()):,} characters), "
                 "each system's scores (`committee score --check-gold`):", "",
                 markdown_table(["system", "f1", "f1 without", "fb", "fb without"], body), "",
                 ("The ranking by " + " and by ".join(flips) + " changes without them."
                  if flips else "No ranking (by f1 or by fb) changes without them."), ""]
    return "\n".join(text)


#: Readers' names of the columns in report.html.
_READERS = {"evidence": "evidence", "context": "sentence (the span in 【】)",
            "sentence": "sentence no.", "word_index": "unit no.", "f1_left_out": "f1 without",
            "fb_left_out": "fb without"}


def page_tables(ctx) -> list:
    """The section's tables for ``report.html`` (:class:`committee.report.html.Analysis`
    of kind ``table``), read back from the CSV files it wrote in this build;
    none when it made none."""
    from committee.report import html

    out = []
    for name, title, text in (
            ("check-gold.csv", f"{TITLE}: the most suspicious spans",
             "The first rows of check-gold.tsv (committee check-gold): the gold's reading, "
             "the proposed one, the evidence the list is ranked by (a probability for errors "
             "like the injected ones it was fitted on, not for real errors), the sentence "
             "with the span in 【】 and the reasons."),
            ("check-gold-systems.csv", f"{TITLE}: scores without those spans",
             "Each system's f1 and fb on the whole test set and with the list's first "
             "spans left out (committee score --check-gold).")):
        path = ctx.out_dir / name
        if path.is_file() and name in ctx.check_gold_files:
            df = runfiles.read_table(path, keep_default_na=False, dtype=str)
            if "context" in df.columns:  # the sentence in view, the evidence after it
                df = df[["gold", "proposed", "evidence", "context", "sentence", "word_index",
                         "reasons"]]
            else:  # scores as the systems table shows them: percentages
                for col in ("f1", "f1_left_out", "fb", "fb_left_out"):
                    df[col] = [pct(float(v)) if v not in ("", "None") else "–" for v in df[col]]
            out.append(html.Analysis(title, df, "table", text=text, names=_READERS))
    return out
