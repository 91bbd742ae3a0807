"""The chip-order probe's second stage (topics/tagger/tools/chip_order_probe.py): a score that
knows which chip is right must raise the first chip; noise must not."""

import numpy as np
import pytest

from topics.tagger.tools.chip_order_probe import chip_gaps, second_stage
from topics.tagger.training.chip_order import first_rates


def _two_chip_papers(right: np.ndarray):
    """Papers of two chips each (rows 2i, 2i+1), gold the right one, as first_rates reads them."""
    slugs = ["a", "b"]
    return [
        (
            [2 * i, 2 * i + 1],
            slugs,
            {s for s, r in zip(slugs, right[2 * i : 2 * i + 2], strict=True) if r},
            set(),
        )
        for i in range(len(right) // 2)
    ]


def test_chip_gaps_are_taken_within_each_paper():
    values = np.array([0.2, 0.5, 0.9, 0.1])
    gaps = chip_gaps(values, _two_chip_papers(np.array([True, False, True, False])))
    assert gaps == pytest.approx([-0.3, 0.0, 0.0, -0.8])


def test_first_chip_right_reads_the_best_chip_and_keeps_the_first_on_ties():
    right = np.array([False, True, True, False])
    papers = _two_chip_papers(right)
    assert first_rates(papers, np.array([0.1, 0.9, 0.5, 0.4]))["first_chip_right"] == 1.0
    assert first_rates(papers, np.array([0.5, 0.5, 0.5, 0.5]))["first_chip_right"] == 0.5


def _papers(n: int, seed: int):
    """n papers of two chips, one right; the chip order finds it 60% of the time."""
    rng = np.random.default_rng(seed)
    right = np.zeros(2 * n, dtype=bool)
    right[[2 * i + int(rng.integers(2)) for i in range(n)]] = True
    order = np.where(right, 0.55, 0.45)
    flip = np.repeat(rng.random(n) < 0.4, 2)
    order = np.where(flip, 1.0 - order, order)
    inner = np.repeat(np.arange(n) % 5, 2)
    return _two_chip_papers(right), right, order, inner, rng


def test_a_score_that_knows_the_right_chip_raises_the_first_chip():
    papers, right, order, inner, rng = _papers(400, 0)
    telling = (right + 0.3 * rng.normal(size=len(right)))[:, None]
    without, with_score = second_stage(papers, right, order, telling, inner)
    assert without == pytest.approx(first_rates(papers, order)["first_chip_right"])
    assert with_score > without + 0.2


def test_noise_adds_nothing_to_the_first_chip():
    papers, right, order, inner, rng = _papers(400, 1)
    noise = rng.normal(size=(len(right), 2))
    without, with_noise = second_stage(papers, right, order, noise, inner)
    assert abs(with_noise - without) < 0.05
