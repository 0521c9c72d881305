"""Which sentence a follow-up on a list quotes (evals/experiments/followup_quotes.py): a rule is
scored by the answer's key points and by whether its quote states one."""

from __future__ import annotations


def test_followup_quotes_scores_a_rule_by_the_answers_key_points() -> None:
    from evals.experiments import followup_quotes as Q

    it = {"work": "w1", "cited": True, "quote": "Background work.", "mentions": False, "lexical_quote": "Background work.",
          "sentences": ["Background work.", "We compress prompts."], "cos": [[0.5, 0.5], [0.2, 0.2]]}
    f = {"id": "MF1", "key_points": ["compress"], "gold": ["w1"], "topic": "shorter input", "predicate": "shorten the input",
         "caveat_kind": "list_by_meaning", "text": "Head:\n[1] L — Background work.", "naive_kp": 0.0, "listed": [it]}
    assert Q.answer_kp(f, Q.now, None) == 0.0 and Q.quote_states(f, Q.now, None) == [0.0]
    stating = Q.rules(lambda t: 1.0)["stating"][0]
    assert Q.answer_kp(f, stating, None) == 1.0 and Q.diagnose(f)["wrong_sentence"] == 1
    assert Q._close("reduc", "reduct") and Q._close("fast", "faster") and not Q._close("use", "user") and not Q._close("generat", "general")
