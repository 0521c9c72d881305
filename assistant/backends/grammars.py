"""llama.cpp GBNF grammars for the numbered-sentence answer designs (settings.prompts.designs).

The "pick" reply is up to four sentence numbers (only numbers that were shown, 1..k) or ``none``,
parseable by construction. The "lead" design runs without a grammar: a one-sentence grammar
(``[A-Z] [^\\[\\]\\n]{10,240} " [" num "]"``) was measured to slow the first token by 2-3 s and
generation about 1.5x on 2 cores (/tmp probe, load ~2); the engine instead stops the lead at its
first citation marker and parses it tolerantly (assistant.compose.prompts.lead_draft).
"""

from __future__ import annotations


def _numbers(k: int) -> str:
    # longest first: "10" must not stop at "1"
    return " | ".join(f'"{n}"' for n in range(max(1, k), 0, -1))


def pick_grammar(k: int) -> str:
    return f'root ::= "none" | num (" " num){{0,3}}\nnum ::= {_numbers(k)}'


def grammar_for(design: str, k: int) -> str | None:
    return pick_grammar(k) if design == "pick" else None
