"""The evidence-based overview study (evals/shapes_evidence*.py): its data split and its rules."""
import numpy as np

from evals.shapes_evidence import HOLDOUT_PREFIX, labelled
from evals.shapes_evidence_fit import flat, many, x_of


def test_the_second_hold_out_batch_is_never_tuning_data():
    tuning, held = labelled(), labelled(holdout=True)
    assert tuning and held
    assert not any(r["id"].startswith(HOLDOUT_PREFIX) for r in tuning)
    assert all(r["id"].startswith(HOLDOUT_PREFIX) for r in held)
    assert {r["shape"] for r in held} == {"fact", "overview"}


def _row(relevances, abstracts, sentences, listed=(), cutoff=0.61):
    return {"relevances": list(relevances), "abstract_list": list(abstracts), "sentence": list(sentences),
            "listed": list(listed), "cutoff": cutoff}


def test_flat_needs_every_sign_that_nothing_stands_out():
    level = x_of(_row([0.2, 0.19, 0.18], [0.50, 0.499], [0.40, 0.40, 0.39]))
    one_stands_out = x_of(_row([0.2, 0.19, 0.18], [0.50, 0.499], [0.80, 0.40, 0.39]))  # one sentence answers
    x = np.array([level, one_stands_out])
    assert flat(x, (0.3, 0.01, 0.05)).tolist() == [True, False]


def test_many_counts_the_abstracts_that_reach_the_list_cut_off():
    x = np.array([x_of(_row([0.2, 0.1, 0.1], [0.5, 0.4], [0.3], listed=[0.7, 0.65, 0.62, 0.3])),
                  x_of(_row([0.2, 0.1, 0.1], [0.5, 0.4], [0.3], listed=[0.7, 0.3]))])
    assert x[:, 4].tolist() == [3, 1]
    assert many(x, (3, 0.3)).tolist() == [True, False]
