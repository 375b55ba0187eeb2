"""Best of 7 cards: our `best_score` (pure Python) against eval7 (Cython), same run.

    python benchmarks/eval7.py [--hands 100000] [--rounds 5] [--seed 1]

Every evaluator gets the same random 7-card hands of the 52 standard cards. Figures are
hands per CPU second (`time.process_time`), best of `--rounds`, the evaluators taking
turns inside each round. Measured:

- `eval7.evaluate`: the baseline, a list of 7 `eval7.Card` in, one integer out;
- ours `best_score`: 7 canonical codes in, one integer out (the 7-card path);
- ours, 21 five-card `score` calls (what `best_hand` did before the 7-card path);
- ours `best_hand`: the full call (parses, values the best subset: a HandValue).

Before timing, the 7-card path is checked against the 21 five-card scores on every
hand. Target (issue 24): `best_score` at least 0.5x eval7 per hand. eval7 is a dev
dependency; without it the script says so and times ours only.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from itertools import combinations
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# This file is named eval7.py: its own folder must not shadow the eval7 package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from benchmarks._machine import machine  # noqa: E402


def best_rates(runs: dict[str, tuple], rounds: int) -> dict[str, float]:
    """Hands per CPU second of each `name: (run, hands)`, best of `rounds`."""
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

    from app.poker.cards import DECK
    from app.poker.evaluator import best_hand, best_score, score

    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(DECK[:52], 7)) for _ in range(args.hands)]
    start = time.process_time()
    best_score(hands[0])  # builds the seed preset's tables (at the first call)
    tables_s = time.process_time() - start
    for hand in hands:  # agreement on every hand before any timing
        assert best_score(hand) == max(score(h, "seed") for h in combinations(hand, 5)), hand

    def run_ours(hs):
        for h in hs:
            best_score(h, "seed")

    def run_21(hs):
        for h in hs:
            max(score(five, "seed") for five in combinations(h, 5))

    def run_best_hand(hs):
        for h in hs:
            best_hand(h, "seed")

    runs: dict[str, tuple] = {"ours best_score (7-card path)": (run_ours, hands)}
    try:
        import eval7
    except ImportError:
        eval7 = None
    if eval7 is not None:
        eval7_hands = [[eval7.Card(c[0] + c[1].lower()) for c in h] for h in hands]

        def run_eval7(hs):
            evaluate = eval7.evaluate
            for h in hs:
                evaluate(h)

        runs = {"eval7.evaluate": (run_eval7, eval7_hands), **runs}
    few = hands[: max(1, args.hands // 10)]  # the slow ones on a tenth of the hands
    runs["ours 21 x score (before)"] = (run_21, few)
    runs["ours best_hand (HandValue)"] = (run_best_hand, few)
    rates = best_rates(runs, args.rounds)

    print(f"{machine()}")
    print(f"{args.hands} random 7-card hands (seed {args.seed}), best of {args.rounds} rounds;")
    print(f"all {args.hands} agree with the 21 five-card scores; tables built in {tables_s:.2f} s")
    base = rates.get("eval7.evaluate")
    print(f"{'evaluator':32} {'hands/CPU s':>12} {'vs eval7':>9}")
    for name, rate in rates.items():
        ratio = f"{rate / base:8.3f}x" if base else "        -"
        print(f"{name:32} {rate:12,.0f} {ratio}")
    ours = rates["ours best_score (7-card path)"]
    if base:
        print(f"\nbest_score / eval7: {ours / base:.2f}x (target >= 0.5)")
    else:
        print("\neval7 is not installed (pip install eval7): no baseline in this run")
    print(f"best_score / 21 x score: {ours / rates['ours 21 x score (before)']:.1f}x")


if __name__ == "__main__":
    main()
