"""SQL of the bank-wide forgetting check: each bank's probes summed in one row (the answer
that records a probe adds it: `bot.practice.memory_updates.take_answer`;
bot.learning.forgetting says what a probe is)."""

from __future__ import annotations

from bot.learning.forgetting import ProbeTally
from bot.storage.dialect import of
from bot.storage.memory_backfill import replayed
from bot.storage.port import Connection


def probe_tally(conn: Connection, bank_id: str) -> ProbeTally:
    """The first spaced reviews of a bank's missed questions, summed over all its learners."""
    row = conn.execute(
        'SELECT probes, recall, recall_squared, "right" FROM forgetting_tallies WHERE bank_id = ?',
        (bank_id,),
    ).fetchone()
    return ProbeTally() if row is None else ProbeTally(int(row[0]), row[1], row[2], int(row[3]))


def backfill(conn: Connection) -> int:
    """The migration's Python step: give stored states the fields their answers imply, then sum
    each bank's probes; returns how many states were updated. Only states whose answers are all
    still there (replayed answers as many as the state counts): after answers were pruned, a
    later miss would pass for the first meeting and make a false probe."""
    changed = 0
    for user_id, bank_id, states in replayed(conn):
        for qid, s in states.items():
            changed += conn.execute(
                "UPDATE memory_states SET predicted_recall = ?, review_right = ?,"
                " spaced_reviews = ?, run_right = ?, sitting_misses = ?, probe_recall = ?,"
                " probe_right = ? WHERE user_id = ? AND bank_id = ? AND question_id = ?"
                " AND reps = ?",
                (
                    s.predicted_recall, s.review_right, s.spaced_reviews, s.run_right,
                    s.sitting_misses, s.probe_recall, int(s.probe_right), user_id, bank_id,
                    qid, s.reps,
                ),
            ).rowcount  # fmt: skip
    conn.execute("DELETE FROM forgetting_tallies")
    d = of(conn)
    conn.execute(
        'INSERT INTO forgetting_tallies (bank_id, probes, recall, recall_squared, "right")'
        f" SELECT bank_id, COUNT(*), {d.total('probe_recall')},"
        f" {d.total('probe_recall * probe_recall')}, {d.total('probe_right')}"
        " FROM memory_states WHERE probe_recall IS NOT NULL GROUP BY bank_id"
    )
    return changed
