"""The web page (Gradio).

- ``app``: the page itself and ``serve``.
- ``handlers``: the page's event handlers.
- ``parts``: the layout: the components of each tab and panel.
- ``render``: HTML rendering of answers, sources and hits.
- ``launch``: the launch arguments, and the safety rule for exposed hosts.
- ``warmup``: which backend the page offers, and the local model's warm-up as the page sees it.
"""
