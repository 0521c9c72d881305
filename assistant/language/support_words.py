"""English closed classes the learned support check reads (``assistant.verify.support``): words of
comparison, of direction (and its opposites), of negation and of universal quantity. A claim that uses one its cited
sentences do not is the shape of the readers' unsupported kinds (a comparison not stated, a
reversed direction, an over-general claim). Grammar's closed sets, not words of any claim set."""

from __future__ import annotations

import re

# comparatives and comparing verbs ("faster", "more accurate", "outperforms", "than")
COMPARATIVE = re.compile(
    r"\b(?:than|more|less|fewer|better|worse|greater|higher|lower|larger|smaller|faster|slower|"
    r"superior|inferior|outperform\w*|surpass\w*|beat\w*|exceed\w*|outpac\w*|underperform\w*|"
    r"\w{3,}er than|compared (?:to|with)|relative to|versus|vs\.?|over)\b", re.I)
# direction of change and its antonym in the same class
DIRECTION = frozenset(
    "increase increases increased increasing decrease decreases decreased decreasing reduce reduces reduced "
    "reducing improve improves improved improving degrade degrades degraded degrading hurt hurts harm harms "
    "raise raises raised lower lowers lowered boost boosts boosted worsen worsens worsened enhance enhances "
    "enhanced impair impairs impaired accelerate accelerates slow slows slowed promote promotes promoted "
    "inhibit inhibits inhibited suppress suppresses suppressed activate activates activated gain gains loss "
    "losses rise rises fall falls higher lower more less faster slower better worse positive negative "
    "necessary unnecessary sufficient insufficient required".split())
NEGATION = frozenset("not no never without neither nor none cannot fails fail failed unable lack lacks absent".split())
# universal quantifiers and certainty words that over-generalise a hedged finding
UNIVERSAL = frozenset(
    "all always every any never entirely completely fully universally guarantees guaranteed guarantee solves "
    "solve solved eliminates eliminate eliminated any regardless only sole first state-of-the-art".split())
HEDGE = frozenset("may might can could suggest suggests suggested some often partially possibly likely potential".split())
# each direction word and its opposites: a claim that says one where its best sentences say only
# the other reverses the finding ("increases" against "decreases")
_PAIRS = (("increase", "decrease"), ("increases", "decreases"), ("increased", "decreased"), ("increasing", "decreasing"),
          ("improve", "degrade"), ("improves", "degrades"), ("improved", "degraded"), ("improving", "degrading"),
          ("higher", "lower"), ("more", "less"), ("more", "fewer"), ("faster", "slower"), ("better", "worse"),
          ("larger", "smaller"), ("greater", "smaller"), ("raise", "reduce"), ("raises", "reduces"),
          ("raised", "reduced"), ("enhance", "impair"), ("enhances", "impairs"), ("enhanced", "impaired"),
          ("promote", "inhibit"), ("promotes", "inhibits"), ("promoted", "inhibited"), ("activate", "suppress"),
          ("activates", "suppresses"), ("activated", "suppressed"), ("gain", "loss"), ("gains", "losses"),
          ("positive", "negative"), ("positively", "negatively"), ("necessary", "unnecessary"),
          ("sufficient", "insufficient"), ("outperforms", "underperforms"), ("above", "below"), ("before", "after"),
          ("upregulated", "downregulated"), ("up-regulated", "down-regulated"), ("rise", "fall"), ("rises", "falls"),
          ("accelerates", "slows"), ("superior", "inferior"), ("maximum", "minimum"), ("best", "worst"))
OPPOSITE: dict[str, frozenset[str]] = {}
for _a, _b in _PAIRS:
    OPPOSITE[_a] = OPPOSITE.get(_a, frozenset()) | {_b}
    OPPOSITE[_b] = OPPOSITE.get(_b, frozenset()) | {_a}
