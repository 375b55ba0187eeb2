"""Poker hand evaluation speed: ours (without and with jokers) against treys, same run.

    python benchmarks/evaluate.py [--hands 100000] [--rounds 5] [--seed 1]

Every evaluator gets the same random 5-card hands (for the joker runs, the same
hands with the last card, or the last two, replaced by jokers). Figures are
evaluations per CPU second (`time.process_time`, so that other processes on a
busy machine distort less), best of `--rounds`. Measured:

- `score`: our fast path (canonical codes in, one integer out, higher wins) — the
  like-for-like comparison with treys' `Evaluator.evaluate` (card ints in, one
  integer out); neither validates its input.
- `evaluate`: our full public call (parses and validates the cards, returns a
  HandValue with the concrete cards and descriptions).

Also prints the import time of `app.poker.evaluator` (tables built once at import)
and the memory its tables take. Targets (issue 3): no-joker `score` at least as fast
as treys; joker hands within 2x of our no-joker speed; import < 1 s; memory < 50 MB.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def best_rates(runs: dict[str, tuple], rounds: int) -> dict[str, float]:
    """Evaluations per second of each `name: (run, hands)`, best of `rounds`; the
    evaluators take turns inside each round so that load changes hit all alike."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, (run, hands) in runs.items():
            start = time.process_time()
            run(hands)
            best[name] = min(best[name], time.process_time() - start)
    return {name: len(runs[name][1]) / seconds for name, seconds in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    # Import time in a fresh interpreter: app.core.errors (FastAPI) first, then ours.
    probe = (
        "import time, app.core.errors; t = time.process_time(); "
        "import app.poker.evaluator; print(time.process_time() - t)"
    )
    tables_s = float(
        subprocess.check_output([sys.executable, "-c", probe], cwd=ROOT, text=True).strip()
    )
    probe_all = (
        "import time; t = time.process_time(); "
        "import app.poker.evaluator; print(time.process_time() - t)"
    )
    import_s = float(
        subprocess.check_output([sys.executable, "-c", probe_all], cwd=ROOT, text=True).strip()
    )

    import app.core.errors  # noqa: F401  (not counted in the tables' memory)

    tracemalloc.start()
    from app.poker import evaluator

    memory_mb = tracemalloc.get_traced_memory()[0] / 1e6
    tracemalloc.stop()

    from treys import Card, Evaluator

    from app.poker.cards import DECK

    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(DECK[:52], 5)) for _ in range(args.hands)]
    one_joker = [(*h[:4], "JK1") for h in hands]
    two_jokers = [(*h[:3], "JK1", "JK2") for h in hands]
    treys_hands = [[Card.new(c[0] + c[1].lower()) for c in h] for h in hands]
    treys = Evaluator()
    no_board: list[int] = []

    def run_treys(hs):
        evaluate = treys.evaluate
        for h in hs:
            evaluate(h, no_board)

    def run_score(hs):
        score = evaluator.score
        for h in hs:
            score(h, "seed")

    def run_evaluate(hs):
        evaluate = evaluator.evaluate
        for h in hs:
            evaluate(h, "seed")

    rates = best_rates(
        {
            "treys Evaluator.evaluate (no jokers)": (run_treys, treys_hands),
            "ours score, no jokers": (run_score, hands),
            "ours score, 1 joker": (run_score, one_joker),
            "ours score, 2 jokers": (run_score, two_jokers),
            "ours evaluate, no jokers": (run_evaluate, hands),
            "ours evaluate, 1 joker": (run_evaluate, one_joker),
            "ours evaluate, 2 jokers": (run_evaluate, two_jokers),
        },
        args.rounds,
    )
    treys_rate = rates["treys Evaluator.evaluate (no jokers)"]
    print(
        f"{args.hands} random hands, best of {args.rounds} rounds, Python {sys.version.split()[0]}"
    )
    print(f"{'evaluator':40} {'evals/CPU s':>12} {'vs treys':>9}")
    for name, rate in rates.items():
        print(f"{name:40} {rate:12,.0f} {rate / treys_rate:8.2f}x")
    score_rate = rates["ours score, no jokers"]
    eval_rate = rates["ours evaluate, no jokers"]
    print()
    print(f"score no jokers / treys:           {score_rate / treys_rate:.2f}x (target >= 1)")
    for n in ("1 joker", "2 jokers"):
        print(
            f"score {n} / score no jokers:{' ' * (8 - len(n))}"
            f"{rates['ours score, ' + n] / score_rate:.2f}x (target >= 0.5); "
            f"evaluate: {rates['ours evaluate, ' + n] / eval_rate:.2f}x"
        )
    print(f"import app.poker.evaluator:        {import_s:.3f} CPU s, of which FastAPI etc. ")
    print(
        f"  {import_s - tables_s:.3f} s and our modules and tables {tables_s:.3f} s (target < 1 s)"
    )
    print(f"tables' memory (tracemalloc):      {memory_mb:.1f} MB (target < 50 MB)")


if __name__ == "__main__":
    main()
